/**
 * An event as one client receives it. Operations return each event once, as a client registered
 * with `apply_markdown` and the `empty_topic_name` capability sees it; Zulip's Tornado finalizes
 * it per client (zerver/tornado/event_queue.py):
 *
 * - a `message` event's `content` is the Markdown source (`content_type: text/x-markdown`) for
 *   clients registered without `apply_markdown` (register's default), the HTML otherwise
 *   (`MessageDict.finalize_payload`);
 * - clients registered with `client_gravatar` (register's default) get a null `avatar_url` for a
 *   sender whose avatar is the Gravatar of the email the message shows (`get_avatar_field`): the
 *   client computes that URL itself;
 * - clients without `empty_topic_name` see the empty topic as `general chat`, in a message's
 *   `subject` and in the topic fields of `delete_message`, `user_topic`, `typing`, `update_message`
 *   (`orig_subject`, `subject`) and the
 *   `message_details` of a mark-unread `update_message_flags` event.
 */
import type { AddressedEvent } from '../core/events';
import { intKeyedObject } from '../core/collections/int-keyed';
import { md5Hex } from '../core/md5';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../core/model/realm';

export type Payload = Readonly<Record<string, unknown>> & { readonly type: string };

export interface ClientForm {
  readonly applyMarkdown: boolean;
  readonly emptyTopicName: boolean;
  /** The register request's `client_gravatar` (Zulip's default: true). */
  readonly clientGravatar?: boolean;
}

/**
 * The event in `form`. Called for each receiving queue, so `cache` (one per event) keeps the
 * at most four forms of one event from being built more than once, as Zulip's `@cache` does.
 */
export function clientPayload(
  addressed: AddressedEvent,
  form: ClientForm,
  cache: Map<number, Payload>,
): Payload {
  const event = addressed.event as Payload;
  const key = (form.applyMarkdown ? 1 : 0) | (form.emptyTopicName ? 2 : 0) | (form.clientGravatar ? 4 : 0);
  const known = cache.get(key);
  if (known !== undefined) return known;
  const built = build(event, addressed.markdown, form);
  cache.set(key, built);
  return built;
}

function build(event: Payload, markdown: string | undefined, form: ClientForm): Payload {
  switch (event.type) {
    case 'message':
      return messageEvent(event, markdown, form);
    case 'delete_message':
    case 'typing':
      return form.emptyTopicName || event['topic'] !== ''
        ? event
        : { ...event, topic: EMPTY_TOPIC_DISPLAY_NAME };
    case 'user_topic':
      return form.emptyTopicName || event['topic_name'] !== ''
        ? event
        : { ...event, topic_name: EMPTY_TOPIC_DISPLAY_NAME };
    case 'update_message_flags':
      return form.emptyTopicName || emptyTopicEntries(event) === 0 ? event : withFallbackDetails(event);
    case 'update_message':
      return form.emptyTopicName || (event['orig_subject'] !== '' && event['subject'] !== '')
        ? event
        : {
            ...event,
            ...(event['orig_subject'] === '' ? { orig_subject: EMPTY_TOPIC_DISPLAY_NAME } : {}),
            ...(event['subject'] === '' ? { subject: EMPTY_TOPIC_DISPLAY_NAME } : {}),
          };
    default:
      return event;
  }
}

function messageEvent(event: Payload, markdown: string | undefined, form: ClientForm): Payload {
  const message = event['message'] as Readonly<Record<string, unknown>> | undefined;
  if (message === undefined) return event;
  const raw = !form.applyMarkdown && markdown !== undefined;
  const fallback = !form.emptyTopicName && message['type'] === 'stream' && message['subject'] === '';
  const gravatar = form.clientGravatar === true && clientComputesGravatar(message);
  if (!raw && !fallback && !gravatar) return event;
  const next: Record<string, unknown> = { ...message };
  if (raw) {
    next['content'] = markdown;
    next['content_type'] = 'text/x-markdown';
  }
  if (fallback) next['subject'] = EMPTY_TOPIC_DISPLAY_NAME;
  if (gravatar) next['avatar_url'] = null;
  return { ...event, message: next };
}

const GRAVATAR = /^https:\/\/secure\.gravatar\.com\/avatar\/([0-9a-f]{32})\?/;

/**
 * Whether the sender's avatar is the Gravatar of the email the message shows: Zulip then leaves
 * `avatar_url` null for `client_gravatar` clients. A sender whose email is hidden from the
 * recipients (another address shown) keeps the URL, which the client could not compute.
 */
function clientComputesGravatar(message: Readonly<Record<string, unknown>>): boolean {
  const url = message['avatar_url'];
  const hash = typeof url === 'string' ? GRAVATAR.exec(url)?.[1] : undefined;
  return hash !== undefined && hash === md5Hex(String(message['sender_email']).toLowerCase());
}

/**
 * For a form that renames empty topics in a mark-unread event's `message_details`: how to finish
 * the event when its client reads it, and how many bytes that adds. Copying the details (a
 * dictionary object of up to 5,000 integer keys) costs milliseconds, so the queue defers it
 * (EventQueue `unfinished`); a form that changes nothing needs no copy (undefined).
 */
export function finishedWhenRead(
  event: Payload,
  form: ClientForm,
): { readonly finish: (event: Payload) => Payload; readonly extraBytes: number } | undefined {
  if (form.emptyTopicName || event.type !== 'update_message_flags') return undefined;
  const renamed = emptyTopicEntries(event);
  if (renamed === 0) return undefined;
  return { finish: withFallbackDetails, extraBytes: renamed * FALLBACK_BYTES };
}

/** What "general chat" adds to an entry's `"topic":""`, in UTF-8 bytes. */
const FALLBACK_BYTES = new TextEncoder().encode(EMPTY_TOPIC_DISPLAY_NAME).length;

/**
 * The entries of `message_details` in the empty topic. Walks the event's `messages` (the keys of
 * `message_details`, ascending; repeated in POST /messages/flags request order) rather than
 * `for...in`: enumerating a 5,000-key dictionary object makes a string per key.
 */
function emptyTopicEntries(event: Payload): number {
  const details = event['message_details'] as
    Readonly<Record<number, Readonly<Record<string, unknown>>>> | undefined;
  const ids = event['messages'] as readonly number[] | undefined;
  if (details === undefined || ids === undefined) return 0;
  let count = 0;
  for (const id of ascending(ids) ? ids : new Set(ids)) {
    const d = details[id];
    if (d !== undefined && d['type'] === 'stream' && d['topic'] === '') count++;
  }
  return count;
}

/**
 * The details with empty topics renamed: a new dictionary built at once (`intKeyedObject`; a
 * spread of the original cost several times more), sharing every entry but the renamed ones,
 * which share one replacement per entry.
 */
function withFallbackDetails(event: Payload): Payload {
  const details = event['message_details'] as
    Readonly<Record<number, Readonly<Record<string, unknown>>>> | undefined;
  const ids = event['messages'] as readonly number[] | undefined;
  if (details === undefined || ids === undefined) return event;
  const keys: number[] = [];
  const values: Readonly<Record<string, unknown>>[] = [];
  const replaced = new Map<object, Readonly<Record<string, unknown>>>();
  for (const id of ascending(ids) ? ids : new Set(ids)) {
    const d = details[id];
    if (d === undefined) continue;
    keys.push(id);
    if (d['type'] !== 'stream' || d['topic'] !== '') {
      values.push(d);
      continue;
    }
    let r = replaced.get(d);
    if (r === undefined) replaced.set(d, (r = Object.freeze({ ...d, topic: EMPTY_TOPIC_DISPLAY_NAME })));
    values.push(r);
  }
  return { ...event, message_details: intKeyedObject(keys, values) };
}

/** Strictly ascending (the operations' order; POST /messages/flags keeps the request's). */
function ascending(ids: readonly number[]): boolean {
  for (let k = 1; k < ids.length; k++) if (ids[k]! <= ids[k - 1]!) return false;
  return true;
}
