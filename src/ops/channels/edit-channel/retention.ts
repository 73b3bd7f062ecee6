import { errors, type ZulipError } from '../../../core/errors';
import { isRealmOwner } from '../../../core/permissions/roles';
import { streamUpdate } from './events';
import { noticeRetention } from './notices';
import type { Run } from './run';

type Parsed<T> =
  { readonly kind: 'ok'; readonly value: T } | { readonly kind: 'error'; readonly error: ZulipError };

/** `unlimited` → -1, `realm_default` → null, a positive integer; anything else is a bad value. */
function parseRetention(value: string | number): Parsed<number | null> {
  if (value === 'unlimited') return { kind: 'ok', value: -1 };
  if (value === 'realm_default') return { kind: 'ok', value: null };
  if (typeof value === 'string' || value <= 0)
    return { kind: 'error', error: errors.invalidVar('message_retention_days', value) };
  return { kind: 'ok', value };
}

/** Step 12: only owners change the retention. */
export function changeRetention(run: Run, requested: string | number | undefined): ZulipError | undefined {
  if (requested === undefined) return undefined;
  if (!isRealmOwner(run.user)) return errors.mustBeOwner();
  const parsed = parseRetention(requested);
  if (parsed.kind === 'error') return parsed.error;
  const value = parsed.value;
  const old = run.channel.message_retention_days;
  run.update((c) => {
    c.message_retention_days = value;
  });
  streamUpdate(run, 'message_retention_days', value);
  noticeRetention(run, old, value);
  return undefined;
}
