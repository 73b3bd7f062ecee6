/**
 * The stored change format. A change is the *cause* of a state change, not its effect: the
 * operation (or wire request), the actor, the parameters, the clock reading and the random bytes
 * the operation consumed. Replaying it through the same pure operation gives the same state, so a
 * change is as small as its request (marking 5000 messages read stores a narrow, not 5000 rows).
 * The recorded HTTP status lets a replay check it took the same path.
 */
import { z } from 'zod';
import type { Actor } from '../core/operation';
import { checksum } from './checksum';
import { CorruptStoreError, UnsupportedFormatError } from './errors';
import type { SealedChange } from './store';

/** The change format this version writes. Older formats are migrated on read (`MIGRATIONS`). */
export const CHANGE_FORMAT = 1;

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
  /** The HTTP status of the acknowledged result. */
  readonly status: number;
}

const actorSchema = z.union([
  z.strictObject({ userId: z.number().int() }),
  z.strictObject({ anonymous: z.literal(true) }),
]);

const changeSchema = z.strictObject({
  format: z.literal(CHANGE_FORMAT),
  version: z.number().int().positive(),
  input: z.discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('call'),
      op: z.string().min(1),
      actor: actorSchema,
      params: z.unknown(),
    }),
    z.strictObject({
      kind: z.literal('request'),
      actor: actorSchema,
      method: z.string(),
      url: z.string(),
      body: z.union([z.string(), z.record(z.string(), z.string())]).optional(),
    }),
  ]),
  now: z.number(),
  random: z.string(),
  deleteTopic: z.strictObject({ batchSize: z.number(), maxBatches: z.number().nullable() }).optional(),
  status: z.number().int(),
});

/**
 * Upgrades a decoded record of format `n` to `n + 1`. Empty while there is one format; when the
 * format changes, add `MIGRATIONS[1] = (old) => new` and bump CHANGE_FORMAT.
 */
const MIGRATIONS: Readonly<Record<number, (raw: Record<string, unknown>) => Record<string, unknown>>> = {};

export function sealChange(change: Change): SealedChange {
  const payload = JSON.stringify({ format: CHANGE_FORMAT, ...change });
  return { version: change.version, payload, checksum: checksum(payload) };
}

/** Verifies and decodes a stored change; `where` names it in errors (e.g. `sqlite x.db, change 17`). */
export function openChange(sealed: SealedChange, where: string): Change {
  if (checksum(sealed.payload) !== sealed.checksum) {
    throw new CorruptStoreError(where, 'checksum mismatch (the record is damaged or truncated)');
  }
  let raw: unknown;
  try {
    raw = JSON.parse(sealed.payload);
  } catch (cause) {
    throw new CorruptStoreError(where, 'the record is not valid JSON', { cause });
  }
  const migrated = migrate(raw, where);
  const parsed = changeSchema.safeParse(migrated);
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
  const { format: _format, deleteTopic, ...rest } = parsed.data;
  return { ...rest, input: rest.input as ChangeInput, ...(deleteTopic ? { deleteTopic } : {}) };
}

function migrate(raw: unknown, where: string): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  let record = raw as Record<string, unknown>;
  const declared = record['format'];
  if (typeof declared !== 'number' || !Number.isInteger(declared) || declared < 1) {
    throw new CorruptStoreError(where, 'the record has no format version');
  }
  let format: number = declared;
  if (format > CHANGE_FORMAT) throw new UnsupportedFormatError(where, format, CHANGE_FORMAT);
  while (format < CHANGE_FORMAT) {
    const step = MIGRATIONS[format];
    if (!step) throw new CorruptStoreError(where, `no migration from change format ${format}`);
    record = step(record);
    format = record['format'] as number;
  }
  return record;
}
