/**
 * Secrets never reach the change log. Before a change is sealed, the value of every parameter whose
 * name ends in `password` (`old_password`, `new_password`, any case) is replaced by `REDACTED`:
 * in a library call's params, in a wire request's form body (a urlencoded string or parsed fields)
 * and in its query string. Names are kept, so a replay takes the same "given / not given" branches;
 * what the hasher answered about the values is recorded instead (`passwords.ts`).
 */
import type { ChangeInput } from './change';

/** What a redacted value becomes in the stored change. */
export const REDACTED = '[redacted]';

/** A parameter whose value is a secret: its name ends in `password` (any case). */
export function isSecretName(name: string): boolean {
  // Unit by unit from the end, not `/password$/i` (each request's every field name goes through
  // here, and a regular expression test allocated). `| 0x20` folds exactly the ASCII capitals onto
  // these lower-case letters, which is all a non-Unicode `i` flag folds onto them.
  const at = name.length - SECRET_SUFFIX.length;
  if (at < 0) return false;
  for (let i = 0; i < SECRET_SUFFIX.length; i++)
    if ((name.charCodeAt(at + i) | 0x20) !== SECRET_SUFFIX.charCodeAt(i)) return false;
  return true;
}

const SECRET_SUFFIX = 'password';

/** The input as it may be stored, and whether anything had to be redacted. */
export function redactInput(input: ChangeInput): { input: ChangeInput; redacted: boolean } {
  if (input.kind === 'call') {
    const params = redactRecord(input.params);
    return params === undefined
      ? { input, redacted: false }
      : { input: { ...input, params }, redacted: true };
  }
  const url = redactUrl(input.url);
  const body =
    input.body === undefined
      ? undefined
      : typeof input.body === 'string'
        ? redactForm(input.body)
        : redactRecord(input.body);
  if (url === undefined && body === undefined) return { input, redacted: false };
  return {
    input: { ...input, url: url ?? input.url, ...(body === undefined ? {} : { body }) },
    redacted: true,
  };
}

/** A copy of a params/fields object with secret values replaced, or undefined when it has none. */
function redactRecord<T>(value: T): T | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  // Nearly every request has no secret: look at the names before copying anything.
  const keys = Object.keys(value);
  let found = false;
  for (let i = 0; i < keys.length && !found; i++) found = isSecretName(keys[i]!);
  if (!found) return undefined;
  const entries = Object.entries(value);
  return Object.fromEntries(entries.map(([k, v]) => [k, isSecretName(k) ? REDACTED : v])) as T;
}

/**
 * A urlencoded form with secret values replaced (re-serialized by `URLSearchParams`, which is how
 * the wire layer parses it, so every other field decodes exactly as before), or undefined.
 */
function redactForm(form: string): string | undefined {
  const fields = new URLSearchParams(form);
  let found = false;
  const out = new URLSearchParams();
  for (const [k, v] of fields) {
    const secret = isSecretName(k);
    found ||= secret;
    out.append(k, secret ? REDACTED : v);
  }
  return found ? out.toString() : undefined;
}

/** The URL with secrets in its query string replaced (split as the wire layer splits it), or undefined. */
function redactUrl(url: string): string | undefined {
  const q = url.indexOf('?');
  if (q < 0) return undefined;
  const query = redactForm(url.slice(q + 1));
  return query === undefined ? undefined : `${url.slice(0, q)}?${query}`;
}
