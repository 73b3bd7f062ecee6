/**
 * Stores written by chat-realm up to 0.1.x, which recorded a message sent with `subject` without
 * its topic (issue 23): the load names the change and says what to do; `chat-realm doctor` finds
 * it, and `--repair` replays it with a stand-in topic and checkpoints the head, after which the
 * store opens with every acknowledged message (docs/persistence.md, "Stores that lost a `subject`").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/run';
import { allMessages } from '../../src/core/messages/store';
import { sealChange, type RequestInput } from '../../src/host/change';
import { examineStore } from '../../src/host/doctor';
import { ReplayMismatchError } from '../../src/host/errors';
import { openRealm } from '../../src/host/realm-handle';
import type { RealmStore } from '../../src/host/store';
import { sqliteStore } from '../../src/stores/sqlite/index';
import { cast, devSnapshot } from '../support/realm';

const NOW = 1795219200;
const dir = mkdtempSync(join(tmpdir(), 'chat-realm-doctor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Appends a message send as the defective versions recorded it (`body` as they stored it). */
async function appendSend(store: RealmStore, version: number, body: Record<string, string>): Promise<void> {
  const [previous] = await store.changesSince(version - 2);
  const input: RequestInput = {
    kind: 'request',
    actor: { userId: cast.iago },
    method: 'POST',
    url: '/api/v1/messages',
    body,
  };
  const sealed = sealChange({ version, input, now: NOW, random: '', status: 200 }, previous?.checksum ?? 0);
  await store.append(sealed, version - 1);
}

async function defectiveStore(name: string): Promise<string> {
  const filename = join(dir, `${name}.db`);
  const store = sqliteStore({ filename, writerThread: false });
  const h = await openRealm({ store, snapshot: devSnapshot(), ctx: { now: NOW }, checkpoints: false });
  await h.close();
  const again = sqliteStore({ filename, writerThread: false });
  await appendSend(again, 1, { type: 'stream', to: 'Verona', topic: 'before', content: 'one' });
  // Sent as `subject=legacy`: 0.1.x stored neither the name nor its value.
  await appendSend(again, 2, { type: 'stream', to: 'Verona', content: 'two' });
  await appendSend(again, 3, { type: 'stream', to: 'Verona', topic: 'after', content: 'three' });
  await again.close();
  return filename;
}

async function cli(args: readonly string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await run(args, { out: (t) => (out += `${t}\n`), err: (t) => (out += `${t}\n`) });
  return { code, out };
}

describe('a store written with the `subject` defect', () => {
  it('is refused at load with the change, the reason and what to do', async () => {
    const filename = await defectiveStore('refused');
    const error = await openRealm({ store: sqliteStore({ filename, writerThread: false }) }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ReplayMismatchError);
    expect((error as Error).message).toMatch(
      /Replaying change 2 diverged from the recorded result: status 400, recorded 200 \(this change was recorded without its topic, which was sent as `subject`.*chat-realm doctor/,
    );
    const store = sqliteStore({ filename, writerThread: false });
    const report = await examineStore(store);
    await store.close();
    expect(report.failure).toMatchObject({ change: 2, lostTopic: true });
    expect(report.version).toBe(1);
  });

  it('is repaired by chat-realm doctor --repair, then opens with every acknowledged message', async () => {
    const filename = await defectiveStore('repaired');
    const checked = await cli(['doctor', '--db', filename]);
    expect(checked.code).toBe(1);
    expect(checked.out).toMatch(/change 2 cannot be applied: .*status 400, recorded 200/);
    expect(checked.out).toMatch(/stop it cleanly \(SIGTERM\)/);

    const repaired = await cli(['doctor', '--db', filename, '--repair', '--lost-topic', 'lost in 0.2']);
    expect(repaired.code).toBe(0);
    expect(repaired.out).toMatch(
      /change 2: recorded without its topic; replayed with the topic "lost in 0.2"/,
    );
    expect((await cli(['doctor', '--db', filename])).out).toMatch(/Healthy: every change up to version 3/);

    const h = await openRealm({ store: sqliteStore({ filename, writerThread: false }), checkpoints: false });
    expect(h.version).toBe(3);
    const last = [...allMessages(h.state.messages)].slice(-3).map((m) => [m.topic, m.content]);
    expect(last).toEqual([
      ['before', 'one'],
      ['lost in 0.2', 'two'],
      ['after', 'three'],
    ]);
    await h.close();
  });

  it('writes the realm at its last good version with --out', async () => {
    const filename = await defectiveStore('exported');
    const out = join(dir, 'good.ndjson');
    const r = await cli(['doctor', '--db', filename, '--out', out]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(new RegExp(`Wrote the realm at version 1 to ${out}`));
    const imported = join(dir, 'good.db');
    expect((await cli(['import', '--snapshot', out, '--db', imported])).code).toBe(0);
  });
});
