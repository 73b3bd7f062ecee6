/**
 * The three shapes of a `presence` event (Zulip's Tornado `process_presence_event`): clients with
 * the `simplified_presence_events` capability get the modern `{presences: {"<id>": …}}`; queues
 * registered with `slim_presence` get the legacy one without `email`; everyone else the legacy
 * one. Operations send the legacy event with its modern form in `modern_presence`.
 */
type Dict = Readonly<Record<string, unknown>>;

export function presenceForQueue(event: Dict, simplified: boolean, slim: boolean): Dict & { type: string } {
  const { modern_presence: modern, email, ...legacy } = event;
  if (simplified) return { type: 'presence', presences: { [String(event['user_id'])]: modern } };
  return { ...legacy, ...(slim ? {} : { email }), type: 'presence' };
}
