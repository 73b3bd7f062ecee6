/**
 * What the examples share: starting one from the command line on the dev organization. Each
 * example wraps the realm handle in `withEventQueues` itself (POST /register, GET /events,
 * DELETE /events: what keeps Zulip's clients live) and closes the queues before its server, so
 * waiting long-polls are answered and the server can stop at once.
 */
import { readFileSync } from 'node:fs';
import { parseRealm } from 'chat-realm';
import { openRealm } from 'chat-realm/host';
import { memoryStore } from 'chat-realm/stores/memory';
import type { RealmHandle } from 'chat-realm/host';

export interface RunningExample {
  readonly url: string;
  close(): Promise<void>;
}

export async function startExample(
  name: string,
  start: (realm: RealmHandle, port: number, host: string) => Promise<RunningExample>,
): Promise<void> {
  // A file's content is of unknown type: parseRealm checks it (createRealm's checks) into a realm.
  const parsed = parseRealm(
    JSON.parse(readFileSync(new URL('../src/cli/demo-realm.json', import.meta.url), 'utf8')),
  );
  if (!parsed.ok) throw parsed.error;
  const realm = await openRealm({ store: memoryStore(), initialState: parsed.state });
  const running = await start(realm, Number(process.env['PORT'] ?? 9992), '127.0.0.1');
  console.log(`${name} example serving the demo organization at ${running.url}`);
  console.log(
    `try: curl -sSu iago@zulip.com:iagoKKKKKKKKKKKKKKKKKKKKKKApiKey ${running.url}/api/v1/users/me`,
  );
  const stop = () => {
    void running.close().then(() => realm.close());
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
