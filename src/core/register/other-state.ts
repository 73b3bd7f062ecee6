import { USER_SETTING_DEFAULTS } from '../model/user-settings';
import type { User } from '../model/records';
import type { RealmState } from '../state';
import { recentPrivateConversations } from './recent-dms';

type Dict = Record<string, unknown>;

export const EMOJISET_CHOICES = [
  { key: 'google', text: 'Google' },
  { key: 'twitter', text: 'Twitter' },
  { key: 'text', text: 'Plain text' },
];
export const NOTIFICATION_SOUNDS = ['chime-sequence', 'ding', 'zulip'];

/**
 * The state types of POST /register the engine answers from constants or with Zulip's empty value
 * (the model holds none of their data: no onboarding, realm domains, code playgrounds, default
 * channel groups, embedded or incoming-webhook bot catalogue, Zoom or GIPHY), and
 * `recent_private_conversations`, computed from the direct messages held. The six types of issue
 * 24's `everyday` half (presence, emoji, statuses, muted users, alert words, user topics) are not
 * here. docs/differences/register.md says why each is empty.
 */
export function otherState(state: RealmState, me: User, want: (type: string) => boolean): Dict {
  const out: Dict = {};
  if (want('onboarding_steps')) out['onboarding_steps'] = [];
  if (want('realm_user_settings_defaults'))
    out['realm_user_settings_defaults'] = {
      ...USER_SETTING_DEFAULTS,
      emojiset_choices: EMOJISET_CHOICES,
      available_notification_sounds: NOTIFICATION_SOUNDS,
    };
  if (want('realm_domains')) out['realm_domains'] = [];
  if (want('realm_playgrounds')) out['realm_playgrounds'] = [];
  if (want('realm_embedded_bots')) out['realm_embedded_bots'] = [];
  if (want('realm_incoming_webhook_bots')) out['realm_incoming_webhook_bots'] = [];
  if (want('recent_private_conversations'))
    out['recent_private_conversations'] = recentPrivateConversations(state, me.user_id);
  if (want('default_stream_groups')) out['realm_default_stream_groups'] = [];
  if (want('stop_words')) out['stop_words'] = [];
  if (want('video_calls')) out['has_zoom_token'] = false;
  if (want('giphy')) out['giphy_api_key'] = '';
  return out;
}
