/**
 * The stored change format. A change is the *cause* of a state change, not its effect: the
 * operation (or wire request), the actor, the parameters, the clock reading and the random bytes
 * the operation consumed. Replaying it through the same pure operation gives the same state, so a
 * change is as small as its request (marking 5000 messages read stores a narrow, not 5000 rows).
 * The recorded HTTP status lets a replay check it took the same path.
 *
 * Secrets are not stored: password parameters are redacted (`redact.ts`) and the password hasher's
 * answers are recorded instead (`passwords.ts`).
 */
import * as z from 'zod/mini';
import type { Actor } from '../core/operation';
import { englishMessages } from '../core/zod-english';
import { checksum } from './checksum';
import { CorruptStoreError, UnsupportedFormatError } from './errors';
import type { PasswordCall } from './passwords';
import type { SealedChange } from './store';

/**
 * The change format this version writes. Older formats are migrated on read (`MIGRATIONS`).
 * Format 3 records are chained: their checksum continues the previous change's (`store.ts`).
 */
export const CHANGE_FORMAT = 3;
/**
 * The format of a change that carries a forwarded request's id and answer (`requestId`,
 * `answer`): format 3 plus those two fields. Only such changes are written as format 4, so a log
 * without forwarded writes stays readable by a chat-realm that knows only format 3 (one that
 * meets a format 4 record refuses it as newer, instead of misreading it).
 */
export const TAGGED_CHANGE_FORMAT = 4;
/** The newest format this version reads. */
const LATEST_FORMAT = TAGGED_CHANGE_FORMAT;
/** The first format whose checksum is chained. */
const CHAINED_FORMAT = 3;

/** A library call: `op(state, actor, params)` with decoded parameters. */
export interface CallInput {
  readonly kind: 'call';
  readonly op: string;
  readonly actor: Actor;
  readonly params: unknown;
}

/**
 * A wire request. No headers are stored (they carry credentials): the actor that authenticated is
 * stored instead, and a replay presents that user's credentials as they were at that version.
 */
export interface RequestInput {
  readonly kind: 'request';
  readonly actor: Actor;
  readonly method: string;
  readonly url: string;
  readonly body?: string | Readonly<Record<string, string>>;
}

export type ChangeInput = CallInput | RequestInput;

export interface Change {
  readonly version: number;
  readonly input: ChangeInput;
  /** The `now` the operation saw (UNIX seconds). */
  readonly now: number;
  /** Base64 of the random bytes the operation consumed, in order. */
  readonly random: string;
  /** Options from the handle's context that change behaviour, recorded so a replay matches. */
  readonly deleteTopic?: { readonly batchSize: number; readonly maxBatches: number | null };
  /**
   * The password hasher's answers, in call order (format 2; omitted when there were none). A replay
   * answers the operation's hasher calls from them.
   */
  readonly passwords?: readonly PasswordCall[];
  /**
   * Set on changes migrated from format 1, which recorded no hasher answers: their replay runs the
   * handle's own hasher on the stored parameters, with the salt among the recorded random bytes.
   */
  readonly liveHasher?: true;
  /** Secret parameters were replaced by `REDACTED` before the change was stored. */
  readonly redacted?: true;
  /** The HTTP status of the acknowledged result. */
  readonly status: number;
  /**
   * The id a follower gave the forwarded request (src/host/leased-handle.ts), so a retry of it,
   * after an answer was lost or after failover, finds this change instead of running it twice.
   */
  readonly requestId?: string;
  /** The answer's body, returned to such a retry (omitted when it held a secret). */
  readonly answer?: Readonly<Record<string, unknown>>;
}

const actorSchema = z.union([
  z.strictObject({ userId: z.number().check(z.int()) }),
  z.strictObject({ anonymous: z.literal(true) }),
]);

const changeSchema = z.strictObject({
  format: z.literal(LATEST_FORMAT),
  version: z.number().check(z.int(), z.positive()),
  input: z.discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('call'),
      op: z.string().check(z.minLength(1)),
      actor: actorSchema,
      params: z.unknown(),
    }),
    z.strictObject({
      kind: z.literal('request'),
      actor: actorSchema,
      method: z.string(),
      url: z.string(),
      body: z.optional(z.union([z.string(), z.record(z.string(), z.string())])),
    }),
  ]),
  now: z.number(),
  random: z.string(),
  deleteTopic: z.optional(z.strictObject({ batchSize: z.number(), maxBatches: z.nullable(z.number()) })),
  passwords: z.optional(
    z.array(z.union([z.strictObject({ hash: z.string() }), z.strictObject({ verify: z.boolean() })])),
  ),
  liveHasher: z.optional(z.literal(true)),
  redacted: z.optional(z.literal(true)),
  status: z.number().check(z.int()),
  requestId: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  answer: z.optional(z.record(z.string(), z.unknown())),
});

/**
 * Upgrades a decoded record of format `n` to `n + 1`. When the format changes, add
 * `MIGRATIONS[n] = (old) => new` and bump CHANGE_FORMAT.
 */
const MIGRATIONS: Readonly<Record<number, (raw: Record<string, unknown>) => Record<string, unknown>>> = {
  // 1 → 2: format 1 recorded no hasher answers (and stored passwords as given): replay it with the
  // live hasher, as format 1 did.
  1: (raw) => ({ ...raw, format: 2, liveHasher: true }),
  // 2 → 3: the same fields; only the checksum (outside the payload) became a chain.
  2: (raw) => ({ ...raw, format: 3 }),
  // 3 → 4: format 4 only adds optional fields (a forwarded request's id and answer).
  3: (raw) => ({ ...raw, format: 4 }),
};

/**
 * Encodes a change; its checksum continues `chain`, the checksum of the change before it (or the
 * `chain` of the checkpoint it follows; 0 after checkpoint 0). A batch of changes chains by sealing
 * them in order, each with the previous one's checksum.
 */
export function sealChange(change: Change, chain: number): SealedChange {
  const tagged = change.requestId !== undefined || change.answer !== undefined;
  const format = tagged ? TAGGED_CHANGE_FORMAT : CHANGE_FORMAT;
  if (!Object.hasOwn(change, 'passwords') && !Object.hasOwn(change, 'format')) {
    // Nearly every change: the record is `format` and then the change's own fields in order, so
    // the change's JSON is spliced after `format` instead of being copied twice into new objects
    // first (every write seals one). `version` always makes the JSON non-empty. The checksum
    // reads the two parts, not the spliced string: `JSON.stringify`'s answer is flat, and the
    // splice is read three times slower (V8's indirections), same value.
    const head = `{"format":${format},`;
    const json = JSON.stringify(change);
    return {
      version: change.version,
      payload: head + json.slice(1),
      checksum: checksum(json, checksum(head, chain), 1),
    };
  }
  const { passwords, ...rest } = change;
  const payload = JSON.stringify({
    format,
    ...rest,
    ...(passwords && passwords.length > 0 ? { passwords } : {}),
  });
  return { version: change.version, payload, checksum: checksum(payload, chain) };
}

/**
 * Verifies and decodes a stored change that follows a record whose checksum (chain value) is
 * `chain`; `where` names it in errors (e.g. `sqlite x.db, change 17`).
 */
export function openChange(sealed: SealedChange, where: string, chain: number): Change {
  const chained = checksum(sealed.payload, chain) === sealed.checksum;
  // Formats 1 and 2 (0.1.0) carry the payload's own CRC; the format inside tells which applies.
  const plain = !chained && checksum(sealed.payload) === sealed.checksum;
  if (!chained && !plain) {
    throw new CorruptStoreError(
      where,
      'checksum mismatch (the record is damaged or truncated, or does not follow the change before it)',
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(sealed.payload);
  } catch (cause) {
    throw new CorruptStoreError(where, 'the record is not valid JSON', { cause });
  }
  const declared = formatOf(raw);
  if (declared !== undefined && declared > LATEST_FORMAT)
    throw new UnsupportedFormatError(where, declared, LATEST_FORMAT);
  if (plain && declared !== undefined && declared >= CHAINED_FORMAT) {
    throw new CorruptStoreError(
      where,
      `the record does not follow the change before it (its checksum chain is broken: a change before it was replaced, lost or damaged)`,
    );
  }
  const migrated = migrate(raw, where);
  const parsed = changeSchema.safeParse(migrated, englishMessages());
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new CorruptStoreError(
      where,
      `malformed change (${first?.path.join('.') || 'record'}: ${first?.message ?? 'invalid'})`,
    );
  }
  if (parsed.data.version !== sealed.version) {
    throw new CorruptStoreError(
      where,
      `the record says version ${parsed.data.version}, the store ${sealed.version}`,
    );
  }
  const {
    format: _format,
    deleteTopic,
    passwords,
    liveHasher,
    redacted,
    requestId,
    answer,
    ...rest
  } = parsed.data;
  return {
    ...rest,
    ...(requestId === undefined ? {} : { requestId }),
    ...(answer === undefined ? {} : { answer }),
    input: withRawFields(rest.input as ChangeInput, migrated),
    ...(deleteTopic ? { deleteTopic } : {}),
    ...(passwords && passwords.length > 0 ? { passwords } : {}),
    ...(liveHasher ? { liveHasher } : {}),
    ...(redacted ? { redacted } : {}),
  };
}

/**
 * A request's fields object as stored: zod's record drops a `__proto__` key, which is a parameter
 * name like any other (its name reaches `ignored_parameters_unsupported`). The values were checked.
 */
function withRawFields(input: ChangeInput, raw: unknown): ChangeInput {
  if (input.kind !== 'request' || typeof input.body !== 'object') return input;
  const body = ((raw as { input?: { body?: unknown } }).input?.body ?? {}) as Record<string, string>;
  const fields = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(body)) fields[k] = v;
  return { ...input, body: fields };
}

function formatOf(raw: unknown): number | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const f = (raw as Record<string, unknown>)['format'];
  return typeof f === 'number' ? f : undefined;
}

function migrate(raw: unknown, where: string): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  let record = raw as Record<string, unknown>;
  const declared = record['format'];
  if (typeof declared !== 'number' || !Number.isInteger(declared) || declared < 1) {
    throw new CorruptStoreError(where, 'the record has no format version');
  }
  let format: number = declared;
  if (format > LATEST_FORMAT) throw new UnsupportedFormatError(where, format, LATEST_FORMAT);
  while (format < LATEST_FORMAT) {
    const step = MIGRATIONS[format];
    if (!step) throw new CorruptStoreError(where, `no migration from change format ${format}`);
    record = step(record);
    format = record['format'] as number;
  }
  return record;
}
