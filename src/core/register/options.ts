import type { EverydayRegisterOptions } from './everyday';

/**
 * What a client asks of POST /register, decoded (Zulip's `events_register_backend` parameters and
 * `client_capabilities`). Every field is optional; defaults are Zulip's.
 */
export interface ClientCapabilities {
  readonly notification_settings_null?: boolean;
  readonly bulk_message_deletion?: boolean;
  readonly user_avatar_url_field_optional?: boolean;
  readonly stream_typing_notifications?: boolean;
  readonly user_settings_object?: boolean;
  readonly linkifier_url_template?: boolean;
  readonly user_list_incomplete?: boolean;
  readonly include_deactivated_groups?: boolean;
  readonly archived_channels?: boolean;
  readonly empty_topic_name?: boolean;
  readonly simplified_presence_events?: boolean;
}

export interface RegisterOptions extends EverydayRegisterOptions {
  /** Event types the queue receives; also what is fetched unless `fetch_event_types` is given. null: all. */
  readonly event_types?: readonly string[] | null;
  /** Event types whose initial state is fetched. null: `event_types`. */
  readonly fetch_event_types?: readonly string[] | null;
  /** Default false. */
  readonly include_subscribers?: boolean;
  /** Default false (Zulip's register default; the OpenAPI text says true for authenticated calls). */
  readonly client_gravatar?: boolean;
  readonly client_capabilities?: ClientCapabilities;
}

/** The capability flags with Zulip's defaults filled in. */
export function capabilities(options: RegisterOptions): Required<ClientCapabilities> {
  const c = options.client_capabilities ?? {};
  return {
    notification_settings_null: c.notification_settings_null ?? false,
    bulk_message_deletion: c.bulk_message_deletion ?? false,
    user_avatar_url_field_optional: c.user_avatar_url_field_optional ?? false,
    stream_typing_notifications: c.stream_typing_notifications ?? false,
    user_settings_object: c.user_settings_object ?? false,
    linkifier_url_template: c.linkifier_url_template ?? false,
    user_list_incomplete: c.user_list_incomplete ?? false,
    include_deactivated_groups: c.include_deactivated_groups ?? false,
    archived_channels: c.archived_channels ?? false,
    empty_topic_name: c.empty_topic_name ?? false,
    simplified_presence_events: c.simplified_presence_events ?? false,
  };
}

/** Zulip's `want`: every type when no list is given, else membership of `fetch_event_types ?? event_types`. */
export function wantFunction(options: RegisterOptions): (type: string) => boolean {
  const list = options.fetch_event_types ?? options.event_types ?? null;
  if (list === null) return () => true;
  const set = new Set(list);
  return (type) => set.has(type);
}
