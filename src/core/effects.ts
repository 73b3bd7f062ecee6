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
      readonly devices: ReadonlyArray<{ readonly kind: 'fcm' | 'apns'; readonly token: string; readonly ios_app_id: string | null }>;
      readonly via_bouncer: boolean;
      readonly user_id: number;
      readonly payload: Readonly<Record<string, unknown>>;
    }
  | {
      /** A notification message Zulip itself would post (e.g. as Notification Bot after a channel change). */
      readonly type: 'post_notification_message';
      readonly stream_id: number;
      readonly topic: string;
      readonly content: string;
    };
