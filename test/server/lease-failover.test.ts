/**
 * One realm served by three `chat-realm serve --database-url --lease` processes (issue 30): writes
 * through each of them while the lease holder is SIGSTOPped or SIGKILLed at random moments, many
 * times. Afterwards every acknowledged message is in the realm exactly once, no message twice,
 * a message acknowledged to a client is readable through every running process right after (reads
 * never older than a write the client saw), and the lease's fencing token counted every takeover.
 *
 * Needs a PostgreSQL server (DATABASE_URL; .ci/run starts one and sets it): PGlite cannot be shared
 * by processes. LEASE_ROUNDS sets the number of leader failures (default 50; a longer soak: more).
 * Zulip has no counterpart (one Tornado process per realm shard, a hot spare promoted by hand).
 */
import type { ChildProcess } from 'node:child_process';
import type { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueSchema, usingServer } from '../stores/pg-backing';
import { spawnServe } from '../support/serve-process';

const URL_ = process.env['DATABASE_URL'] ?? '';
const ROUNDS = Number(process.env['LEASE_ROUNDS'] ?? 50);
const LEASE_MS = 300;
const HAMLET = 'Basic ' + btoa('hamlet@zulip.com:hamletKKKKKKKKKKKKKKKKKKKKApiKey');
const TOPIC = 'lease failover';

interface Proc {
  readonly child: ChildProcess;
  readonly site: string;
  stopped: boolean;
  dead: boolean;
}

const schema = uniqueSchema();
const procs: Proc[] = [];
let admin: Pool;

async function serve(): Promise<Proc> {
  const started = await spawnServe([
    ...['--database-url', URL_, '--schema', schema, '--port', '0', '--lease'],
    ...['--lease-ms', String(LEASE_MS), '--rate-limit', 'off', '--fair-share', 'off'],
  ]);
  const proc: Proc = { child: started.child, site: started.site, stopped: false, dead: started.dead };
  started.child.on('exit', () => (proc.dead = true));
  return proc;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function send(proc: Proc, content: string): Promise<number | undefined> {
  try {
    const res = await fetch(`${proc.site}/api/v1/messages`, {
      method: 'POST',
      headers: { authorization: HAMLET, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ type: 'stream', to: 'Denmark', topic: TOPIC, content }).toString(),
      signal: AbortSignal.timeout(20_000),
    });
    const body = (await res.json()) as { result: string; id?: number };
    return res.status === 200 && body.result === 'success' ? body.id : undefined;
  } catch {
    return undefined; // no answer: not acknowledged
  }
}

async function leaderIndex(): Promise<number | undefined> {
  const { rows } = await admin.query<{ address: string; live: boolean }>(
    `SELECT address, expires_at > now() AS live FROM "${schema}".chat_realm_leases`,
  );
  const row = rows[0];
  if (!row?.live) return undefined;
  const i = procs.findIndex((p) => p.site === row.address && !p.dead && !p.stopped);
  return i < 0 ? undefined : i;
}

describe.runIf(usingServer)('serve --lease: failover under SIGKILL and SIGSTOP', () => {
  beforeAll(async () => {
    const pg = (await import('pg')).default;
    admin = new pg.Pool({ connectionString: URL_, max: 2 });
    // The first creates the realm; the others open it.
    procs.push(await serve());
    procs.push(...(await Promise.all([serve(), serve()])));
  }, 120_000);
  afterAll(async () => {
    for (const p of procs) {
      if (p.stopped) p.child.kill('SIGCONT');
      if (!p.dead) p.child.kill('SIGKILL');
    }
    await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin?.end();
  });

  it(`keeps every acknowledged write exactly once through ${ROUNDS} leader failures`, async () => {
    const acked = new Map<string, number>();
    const failovers: { kill: boolean; ms: number }[] = [];
    let staleReads = 0;
    let running = true;
    let n = 0;
    // Two writers per process, each waiting for its answer before the next message.
    const writer = async (w: number) => {
      while (running) {
        const live = procs.filter((p) => !p.dead && !p.stopped);
        const proc = live[w % Math.max(1, live.length)];
        if (!proc) {
          await sleep(20);
          continue;
        }
        const content = `zq${w}x${n++}zq`;
        const id = await send(proc, content);
        if (id === undefined) continue;
        acked.set(content, id);
        // Read it back through another running process: never older than what the client saw.
        const other = procs.find((p) => p !== proc && !p.dead && !p.stopped);
        if (other && n % 5 === 0) {
          const res = await fetch(`${other.site}/api/v1/messages/${id}`, {
            headers: { authorization: HAMLET },
            signal: AbortSignal.timeout(20_000),
          }).catch(() => undefined);
          // A process stopped meanwhile cannot answer; one that answers must have the message.
          if (res && res.status !== 200 && !other.stopped && !other.dead) staleReads++;
        }
      }
    };
    const writers = Array.from({ length: 6 }, (_, w) => writer(w));
    const spawning: Promise<void>[] = [];

    for (let round = 0; round < ROUNDS; round++) {
      let leader = await leaderIndex();
      for (let waited = 0; leader === undefined && waited < 200; waited++) {
        await sleep(50);
        leader = await leaderIndex();
      }
      expect(leader, `round ${round}: a leader`).toBeDefined();
      const victim = procs[leader!]!;
      const survivors = procs.filter((p) => p !== victim && !p.dead && !p.stopped);
      if (survivors.length === 0) {
        await Promise.all(spawning);
        round--;
        continue;
      }
      await sleep(Math.random() * 150); // mid-batch: the writers keep it busy
      const kill = round % 5 === 4;
      const t0 = performance.now();
      if (kill) {
        victim.child.kill('SIGKILL');
        victim.dead = true;
        spawning.push(serve().then((p) => void procs.push(p)));
      } else {
        victim.child.kill('SIGSTOP');
        victim.stopped = true;
      }
      // Failover: the first write acknowledged by a survivor after the leader failed.
      const probe = survivors[round % survivors.length]!;
      for (let tries = 0; ; tries++) {
        if ((await send(probe, `probe${round}x${tries}`)) !== undefined) {
          acked.set(`probe${round}x${tries}`, 0);
          break;
        }
        expect(tries, `round ${round}: failover`).toBeLessThan(200);
      }
      failovers.push({ kill, ms: performance.now() - t0 });
      if (!kill) {
        // The old leader resumes fenced: its late appends are refused, its writes forwarded.
        victim.child.kill('SIGCONT');
        victim.stopped = false;
      }
    }
    running = false;
    await Promise.all(writers);
    await Promise.all(spawning);

    // Everything in the topic, read through one process (after catch-up), page by page.
    const reader = procs.find((p) => !p.dead)!;
    const seen = new Map<string, number>();
    let anchor = '0';
    for (;;) {
      const narrow = JSON.stringify([{ operator: 'topic', operand: TOPIC }]);
      const q = new URLSearchParams({
        anchor,
        num_before: '0',
        num_after: '1000',
        narrow,
        include_anchor: 'false',
      });
      const res = await fetch(`${reader.site}/api/v1/messages?${q}`, { headers: { authorization: HAMLET } });
      const body = (await res.json()) as {
        messages: { id: number; content: string }[];
        found_newest: boolean;
      };
      for (const m of body.messages) {
        const text = /(zq\d+x\d+zq|probe\d+x\d+)/.exec(m.content)?.[1] ?? m.content;
        seen.set(text, (seen.get(text) ?? 0) + 1);
      }
      if (body.found_newest || body.messages.length === 0) break;
      anchor = String(body.messages.at(-1)!.id);
    }
    const missing = [...acked.keys()].filter((c) => seen.get(c) !== 1);
    const doubled = [...seen].filter(([, count]) => count > 1);
    const { rows } = await admin.query<{ token: string }>(`SELECT token FROM "${schema}".chat_realm_leases`);
    const figure = (kill: boolean) => {
      const ms = failovers
        .filter((f) => f.kill === kill)
        .map((f) => f.ms)
        .sort((a, b) => a - b);
      return `${kill ? 'SIGKILL' : 'SIGSTOP'} ×${ms.length} median ${ms[ms.length >> 1]?.toFixed(0)} ms, max ${ms.at(-1)?.toFixed(0)} ms`;
    };
    console.log(
      `lease failover (${LEASE_MS} ms lease): ${ROUNDS} rounds, ${acked.size} acknowledged writes, ${seen.size} stored; ` +
        `${figure(true)}; ${figure(false)}; token ${rows[0]?.token}`,
    );
    expect(missing).toEqual([]);
    expect(doubled).toEqual([]);
    expect(staleReads).toBe(0);
    // Every failure moved the lease to another process: at least one takeover (a new token) each.
    expect(Number(rows[0]!.token)).toBeGreaterThanOrEqual(ROUNDS + 1);
  }, 600_000);
});
