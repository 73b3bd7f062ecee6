import * as z from 'zod/mini';
import { errors, type ZulipError } from '../../core/errors';
import { zulipIssue } from '../../core/params';
import { pythonStrip } from '../../core/text/whitespace';

/** The `type` of a message (POST /messages, PATCH /scheduled_messages): Zulip's four spellings. */
export const messageTypeSchema = z.pipe(
  z.string(),
  z.transform((value, ctx) => {
    if (value === 'direct' || value === 'channel' || value === 'stream' || value === 'private') return value;
    zulipIssue(ctx, 'Invalid {var}: Value error, Not in the list of possible values');
    return z.NEVER;
  }),
);

/**
 * Zulip's parsing of the `to` parameter of POST /messages (`extract_stream_indicator`,
 * `extract_private_recipients` in `zerver/actions/message_send.py`). On the wire `to` is a plain
 * string that may hold JSON; library callers may pass the decoded value directly.
 */
export type ToValue = string | number | ReadonlyArray<string | number>;

type Decoded = { ok: true; value: unknown } | { ok: false };

function decode(to: ToValue): Decoded {
  if (typeof to !== 'string') return { ok: true, value: to };
  try {
    return { ok: true, value: JSON.parse(to) as unknown };
  } catch {
    return { ok: false };
  }
}

/** A channel name or id; Python's JSON reads `true`/`false` as the ints 1/0. */
export function extractStreamIndicator(to: ToValue): string | number | ZulipError {
  const decoded = decode(to);
  if (!decoded.ok) return to as string;
  let data = decoded.value;
  if (Array.isArray(data)) {
    if (data.length !== 1) return errors.badRequest('Expected exactly one channel');
    data = data[0];
  }
  if (typeof data === 'string') return data;
  if (typeof data === 'boolean') return data ? 1 : 0;
  if (typeof data === 'number' && Number.isSafeInteger(data)) return data;
  return errors.badRequest('Invalid data type for channel');
}

/** Emails (stripped, deduplicated, empty ones dropped) or user ids (deduplicated, ascending). */
export function extractPrivateRecipients(to: ToValue): string[] | number[] | ZulipError {
  const decoded = decode(to);
  let data: unknown = decoded.ok ? decoded.value : to;
  if (typeof data === 'string') data = data.split(',');
  if (!Array.isArray(data)) return errors.badRequest('Invalid data type for recipients');
  if (data.length === 0) return [];
  const mixed = errors.badRequest('Recipient lists may contain emails or user IDs, but not both.');
  if (typeof data[0] === 'string') {
    if (!data.every((e) => typeof e === 'string')) return mixed;
    return [...new Set(data.map((e: string) => pythonStrip(e)))].filter((e) => e !== '');
  }
  if (!isPyInt(data[0])) return errors.badRequest('Invalid data type for recipients');
  if (!data.every(isPyInt)) return mixed;
  return [...new Set(data.map((v: number | boolean) => Number(v)))].sort((a, b) => a - b);
}

function isPyInt(v: unknown): v is number | boolean {
  return typeof v === 'boolean' || (typeof v === 'number' && Number.isSafeInteger(v));
}
