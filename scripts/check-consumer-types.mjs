// In the scratch project that installed the packed tarball (see check-subpaths.mjs): a TypeScript
// user gets compile errors for a misspelled parameter and a wrong parameter type (and a misspelled
// or mistyped snapshot field), and reads typed response and snapshot fields without casts, in ESM
// and CommonJS resolution alike.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [tmp] = process.argv.slice(2);
const project = join(tmp, 'consumer');
const tsc = join(process.cwd(), 'node_modules/typescript/bin/tsc');

const prelude = `import { createRealm, editChannel, getOwnUser, parseRealm, snapshotRealm, updateMessageFlagsForNarrow } from 'chat-realm';
import { actAs } from 'chat-realm/testing';
const realm = createRealm({ format: 'chat-realm.snapshot/1', realm: { name: 'Acme' }, users: [{ user_id: 1, full_name: 'Ada', email: 'ada@example.com', role: 100, api_key: 'a'.repeat(32) }] });
`;
const cases = {
  good: {
    code: `${prelude}
const r = updateMessageFlagsForNarrow(realm, { userId: 1 }, { anchor: 'oldest', num_before: 0, num_after: 10, narrow: [], op: 'add', flag: 'read' });
if (r.body.result === 'success') {
  const n: number = r.body.processed_count;
  const first: number | null = r.body.first_processed_id;
  console.log(n, first);
} else {
  const msg: string = r.body.msg;
  console.log(msg);
}
const me = getOwnUser(realm, { userId: 1 });
if (me.body.result === 'success') { const id: number = me.body.user_id; console.log(id); }
const s = actAs(realm, 1).run('getOwnUser');
if (s.body.result === 'success') { const name: string = s.body.full_name; console.log(name); }
const e = editChannel(realm, { userId: 1 }, { stream_id: 1, description: 'x' });
for (const { event } of e.events) if (event.type === 'stream' && event.op === 'update') console.log(event.stream_id);
const snapshot = snapshotRealm(realm);
const email: string = snapshot.users[0]!.email;
const again = createRealm(snapshot);
const parsed = parseRealm(JSON.parse(JSON.stringify(snapshot)) as unknown);
if (parsed.ok) console.log(email, again.users.size, parsed.state.users.size);
`,
    errors: [],
  },
  misspelledSnapshotKey: {
    code: `${prelude}createRealm({ format: 'chat-realm.snapshot/1', users: [{ user_id: 2, fullname: 'Bo', email: 'b@example.com', api_key: 'b'.repeat(32) }] });\n`,
    errors: ['TS2353', 'TS2561', 'TS2322'],
  },
  wrongSnapshotType: {
    code: `${prelude}createRealm({ format: 'chat-realm.snapshot/1', channels: [{ stream_id: '1', name: 'general' }] });\n`,
    errors: ['TS2322'],
  },
  misspelled: {
    code: `${prelude}editChannel(realm, { userId: 1 }, { stream_id: 1, descripton: 'x' });\n`,
    errors: ['TS2353', 'TS2561'],
  },
  wrongType: {
    code: `${prelude}editChannel(realm, { userId: 1 }, { stream_id: '1' });\n`,
    errors: ['TS2322'],
  },
  unknownBodyField: {
    code: `${prelude}const r = getOwnUser(realm, { userId: 1 });\nif (r.body.result === 'success') console.log(r.body.processed_count);\n`,
    errors: ['TS2339'],
  },
};

let failed = 0;
for (const moduleKind of ['nodenext-esm', 'nodenext-cjs']) {
  const esm = moduleKind.endsWith('esm');
  for (const [name, c] of Object.entries(cases)) {
    const file = `case-${name}.${esm ? 'mts' : 'cts'}`;
    const code = esm ? c.code : c.code.replace(/^import (.*) from '(.*)';$/gm, "import $1 from '$2';");
    writeFileSync(join(project, file), code);
    let out = '';
    try {
      execFileSync(
        'node',
        [
          tsc,
          '--noEmit',
          '--strict',
          '--exactOptionalPropertyTypes',
          '--module',
          'nodenext',
          '--moduleResolution',
          'nodenext',
          '--target',
          'es2022',
          '--skipLibCheck',
          'false',
          '--lib',
          'es2022,dom',
          file,
        ],
        { cwd: project, stdio: 'pipe' },
      );
    } catch (e) {
      out = String(e.stdout ?? '') + String(e.stderr ?? '');
    }
    const codes = [...out.matchAll(/error (TS\d+)/g)].map((m) => m[1]);
    const ok =
      c.errors.length === 0
        ? codes.length === 0
        : codes.length > 0 && codes.every((x) => c.errors.includes(x));
    console.log(
      `${ok ? '✓   ' : 'FAIL'} types ${moduleKind} ${name}${codes.length ? ` (${[...new Set(codes)].join(', ')})` : ''}`,
    );
    if (!ok) {
      failed++;
      console.log(out);
    }
  }
}
if (failed > 0) process.exit(1);
