/** The `zulip_version` chat-realm reports (server_settings, register): not a Zulip release. */
export const ENGINE_VERSION = '11.0-chat-realm';
/** Zulip's `ZULIP_MERGE_BASE`. */
export const ENGINE_MERGE_BASE = '11.0-chat-realm';
