import type { PresenceRow } from './presence/presence';

/** Work the host must do outside the realm, returned as data; the core never performs it. */
export type Effect =
  | {
      readonly type: 'send_email_change_confirmation';
      readonly user_id: number;
      readonly old_email: string;
      readonly new_email: string;
      readonly realm_name: string;
    }
  | {
      readonly type: 'send_push_notification';
      /** Where to deliver: the device tokens, and whether through the bouncer. */
      readonly devices: ReadonlyArray<{
        readonly kind: 'fcm' | 'apns';
        readonly token: string;
        readonly ios_app_id: string | null;
      }>;
      readonly via_bouncer: boolean;
      readonly user_id: number;
      readonly payload: Readonly<Record<string, unknown>>;
      /**
       * For APNs devices: the alert Zulip wraps around `payload` (which goes in `custom.zulip`).
       * Present only when an APNs device is among `devices`.
       */
      readonly apns?: {
        readonly alert: { readonly title: string; readonly body: string };
        readonly sound: string;
      };
    }
  | {
      /** Tell the push bouncer to forget a device token (Zulip's `push/unregister` call). */
      readonly type: 'unregister_push_device';
      readonly user_id: number;
      readonly kind: 'fcm' | 'apns';
      readonly token: string;
    }
  | {
      /** A notification message Zulip itself would post (e.g. as Notification Bot after a channel change). */
      readonly type: 'post_notification_message';
      readonly stream_id: number;
      readonly topic: string;
      readonly content: string;
    }
  | {
      /** A direct message Zulip's Notification Bot would send (e.g. "X subscribed you to #**c**."). */
      readonly type: 'post_notification_direct_message';
      readonly recipient_id: number;
      readonly content: string;
    }
  | {
      /**
       * Zulip's "new channels" announcement, for the realm's new-channel announcements channel
       * (a realm setting the engine does not model: the host picks the channel, or drops it).
       */
      readonly type: 'announce_new_channels';
      readonly topic: string;
      readonly content: string;
    }
  | {
      /** Store this presence row (volatile host state: never a change-log record). */
      readonly type: 'update_presence';
      readonly row: PresenceRow;
    };
