import { renderMarkdown } from '../../core/markdown';
import { defineOperation } from '../../core/operation';
import { ENGINE_MERGE_BASE, ENGINE_VERSION } from '../../core/register/version';
import { success } from '../../core/result';

/**
 * GET /api/v1/server_settings — https://zulip.com/api/get-server-settings
 *
 * Unauthenticated: what a client reads before logging in (Zulip's `get_server_settings`), answered
 * whatever credentials come with the request (Zulip's view never reads them). The authentication
 * methods are the ones that work here: email and password (POST /fetch_api_key) when the realm
 * allows password login (`email_auth_enabled`, `authentication_methods.password` and `.email`, as
 * Zulip's EmailAuthBackend reports both); no external methods. The realm icon is empty.
 *
 * @example
 * ```ts
 * const r = getServerSettings(realm, { anonymous: true });
 * expect(r.body).toMatchObject({ zulip_feature_level: 496, realm_name: 'Zulip Dev' });
 * ```
 */
export const getServerSettings = defineOperation({
  name: 'getServerSettings',
  method: 'GET',
  path: '/server_settings',
  operationId: 'get-server-settings',
  allowAnonymous: true,
  unauthenticatedApi: true,
  // Zulip's view never reads credentials: a wrong API key still gets the settings.
  ignoresCredentials: true,
  reportsIgnored: false,
  params: [],
  handler: ({ state }) => {
    const r = state.realm;
    return success(state, {
      data: {
        authentication_methods: {
          password: r.password_auth_enabled,
          dev: false,
          email: r.password_auth_enabled,
          ldap: false,
          remoteuser: false,
          github: false,
          azuread: false,
          gitlab: false,
          apple: false,
          google: false,
          saml: false,
          'openid connect': false,
        },
        external_authentication_methods: [],
        zulip_feature_level: state.server.feature_level,
        zulip_version: ENGINE_VERSION,
        zulip_merge_base: ENGINE_MERGE_BASE,
        push_notifications_enabled: state.server.push_notifications !== 'off',
        is_incompatible: false,
        email_auth_enabled: r.password_auth_enabled,
        require_email_format_usernames: true,
        realm_url: r.uri,
        realm_uri: r.uri,
        realm_name: r.name,
        realm_icon: '',
        realm_description: renderMarkdown(r.description),
        realm_web_public_access_enabled: r.enable_spectator_access && state.server.web_public_streams_enabled,
      },
    });
  },
});
