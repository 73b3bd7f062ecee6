import type { RealmState } from '../state';

/**
 * Zulip's system bots (settings.CROSS_REALM_BOT_EMAILS), as `get_cross_realm_dicts` lists them.
 * They belong to Zulip's internal realm, not to the organization: the model holds no record for
 * them, only their ids (`server.*_bot_id`), so this is their whole representation.
 */
const SYSTEM_BOTS = [
  // Sorted by full name, as Zulip sorts them.
  {
    key: 'email_gateway_bot_id',
    email: 'emailgateway@zulip.com',
    name: 'Email Gateway',
    avatar: 'emailgateway',
  },
  {
    key: 'notification_bot_id',
    email: 'notification-bot@zulip.com',
    name: 'Notification Bot',
    avatar: 'notification-bot',
  },
  { key: 'welcome_bot_id', email: 'welcome-bot@zulip.com', name: 'Welcome Bot', avatar: 'welcome-bot' },
] as const;

/** One entry of register's `cross_realm_bots`. */
export interface CrossRealmBot {
  readonly email: string;
  readonly user_id: number;
  readonly avatar_version: number;
  readonly is_admin: false;
  readonly is_owner: false;
  readonly is_guest: false;
  readonly role: 400;
  readonly is_bot: true;
  readonly full_name: string;
  readonly timezone: string;
  readonly is_active: true;
  readonly date_joined: string;
  readonly delivery_email: null;
  readonly avatar_url: string;
  readonly bot_type: 1;
  readonly bot_owner_id: null;
  readonly is_system_bot: true;
}

/**
 * Register's `cross_realm_bots`. Zulip formats them with `client_gravatar=False` and shows their
 * static avatars; `bot_owner_id` is null (they own themselves, which Zulip hides). A bot the
 * snapshot holds as a realm user (same address, e.g. a Welcome Bot of the organization) or whose
 * id a realm user holds is left out: the realm user stands for it, and clients that merge these
 * entries into their user table by id see no clash.
 */
export function crossRealmBots(state: RealmState): CrossRealmBot[] {
  const out: CrossRealmBot[] = [];
  for (const bot of SYSTEM_BOTS) {
    const userId = state.server[bot.key];
    if (state.users.has(userId) || state.usersByEmail.has(bot.email)) continue;
    out.push({
      email: bot.email,
      user_id: userId,
      avatar_version: 1,
      is_admin: false,
      is_owner: false,
      is_guest: false,
      role: 400,
      is_bot: true,
      full_name: bot.name,
      timezone: '',
      is_active: true,
      date_joined: '1970-01-01T00:00+00:00',
      delivery_email: null,
      avatar_url: `/static/images/static_avatars/${bot.avatar}.png`,
      bot_type: 1,
      bot_owner_id: null,
      is_system_bot: true,
    });
  }
  return out;
}
