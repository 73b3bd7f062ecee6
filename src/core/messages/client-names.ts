/**
 * The client a message was sent with (Zulip's `Message.sending_client`, shown as a message dict's
 * `client`). Zulip names a request's client from its `client` parameter, else from its
 * User-Agent (`parse_client`), else "Unspecified", cut to 30 characters (`Client.MAX_NAME_LENGTH`).
 *
 * Stored without growing a message: the high four bits of the message's `bits` column hold the
 * client's place in `KNOWN_CLIENTS` (0 is "API", what a library call without a client records,
 * and what every message stored before clients were recorded reads as). A name outside that
 * list is stored as `OTHER_CLIENT` and spelled in `MessageStore.clients` (message id → name).
 */

/** What a library send without a client records, and what a message stored without one reads as. */
export const LIBRARY_CLIENT = 'API';

/** The clients a message's bits can name; fixed forever (stored data refers to them by place). */
export const KNOWN_CLIENTS = [
  'API',
  'ZulipPython',
  'ZulipTerminal',
  'ZulipFlutter',
  'ZulipMobile',
  'ZulipDesktop',
  'ZulipElectron',
  'website',
  'Unspecified',
  'Internal',
  'ZulipAndroid',
  'ZulipiOS',
  'test suite',
  'node-fetch',
  'node',
] as const;

export const CLIENT_SHIFT = 4;
/** The bits of `MESSAGE_BITS`' column that hold the client. */
export const CLIENT_MASK = 0xf0;
/** A client outside `KNOWN_CLIENTS`: its name is in `MessageStore.clients`. */
export const OTHER_CLIENT = 15;

/** Zulip's `Client.MAX_NAME_LENGTH`. */
export const CLIENT_NAME_MAX = 30;

const placeOf = new Map<string, number>(KNOWN_CLIENTS.map((name, i) => [name, i]));

/** The client bits for a name (already cut to `CLIENT_NAME_MAX`): its place, or `OTHER_CLIENT`. */
export function clientBits(name: string): number {
  return (placeOf.get(name) ?? OTHER_CLIENT) << CLIENT_SHIFT;
}

/** Whether a message's bits say its client is spelled in `MessageStore.clients`. */
export function isOtherClient(bits: number): boolean {
  return (bits & CLIENT_MASK) === OTHER_CLIENT << CLIENT_SHIFT;
}

/**
 * The client bits of a message being loaded (none for no client), adding its [id, name] to
 * `others` when the name is outside `KNOWN_CLIENTS` (the builders' `clientList`).
 */
export function loadedClientBits(
  id: number,
  name: string | undefined,
  others: Array<readonly [number, string]>,
): number {
  if (name === undefined) return 0;
  const bits = clientBits(name);
  if (isOtherClient(bits)) others.push([id, name]);
  return bits;
}

/** The name stored for a message from its bits, and the store's names of other clients. */
export function clientName(
  bits: number,
  id: number,
  others: { get(id: number): string | undefined },
): string {
  if (isOtherClient(bits)) return others.get(id) ?? LIBRARY_CLIENT;
  return KNOWN_CLIENTS[(bits & CLIENT_MASK) >> CLIENT_SHIFT]!;
}

/**
 * Zulip's `parse_user_agent`: the name is what precedes the first "/" or space, plus any
 * following text up to a digit, "/" or "("; a name that does not match gives undefined.
 */
const USER_AGENT = /^([^/ ]*[^0-9/(]*)(\/([^/ ]*))?([ /].*)?$/;

/**
 * The client name of a request that did not send a `client` parameter (`parse_client`): the
 * User-Agent's name, or "Unspecified" without a usable User-Agent. Cut to 30 characters, as
 * Zulip's `get_client` stores it.
 */
export function clientFromUserAgent(userAgent: string | undefined): string {
  if (userAgent === undefined) return 'Unspecified';
  // A client sends the same header on every request: its last answer saves the expression.
  if (userAgent === lastAgent.header) return lastAgent.name;
  const m = USER_AGENT.exec(userAgent);
  const name = m === null ? 'Unspecified' : cutClientName(m[1] ?? '');
  lastAgent = { header: userAgent, name };
  return name;
}

let lastAgent = { header: '', name: '' };

/** A name as Zulip stores it: at most 30 characters (Python counts code points, not UTF-16 units). */
export function cutClientName(name: string): string {
  if (name.length <= CLIENT_NAME_MAX) return name;
  const points = Array.from(name);
  return points.length <= CLIENT_NAME_MAX ? name : points.slice(0, CLIENT_NAME_MAX).join('');
}

/** Whether a stored name fits Zulip's column (30 code points). */
export function isClientName(v: unknown): v is string {
  return typeof v === 'string' && (v.length <= CLIENT_NAME_MAX || Array.from(v).length <= CLIENT_NAME_MAX);
}

/** The full-UI clients (`Client.default_read_by_sender`): a message sent from one is read by its sender. */
const FULL_UI = new Set([
  'zulipandroid',
  'zulipios',
  'zulipdesktop',
  'zulipmobile',
  'zulipelectron',
  'zulipterminal',
  'snipe',
  'website',
  'ios',
  'android',
]);

/**
 * `read_by_sender` when a send does not say: true for Zulip's full-UI clients (a message from a
 * person's own UI is read; one an integration sends with their key is not). Zulip also counts
 * "test suite", but only while running its own tests (`settings.TEST_SUITE`); a server does not.
 */
export function defaultReadBySender(client: string): boolean {
  return FULL_UI.has(client.toLowerCase());
}
