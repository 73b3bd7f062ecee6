/**
 * The live-event demonstration `serve` prints (src/cli/serve.ts, `banner`): who sends a message
 * that the printed user (the watcher) receives as an event, and where. Found by running the pure
 * `sendMessage` on the current state and keeping the first send whose `message` event reaches the
 * watcher, so the printed commands work on any realm (the demo organization, a snapshot, --user).
 */
import type { User } from '../core/model/records';
import type { RealmState } from '../core/state';
import { sendMessage } from '../ops/messages/sendMessage';

interface LiveDemo {
  readonly sender: User;
  /** The `to` and `type` of POST /messages: a channel's name, or the watcher's id (a DM). */
  readonly type: 'stream' | 'direct';
  readonly to: string;
  readonly topic?: string;
  readonly content: string;
}

/** Candidates looked at: enough for any realm the CLI serves, bounded for a large one. */
const MAX_SENDERS = 20;
const MAX_CHANNELS = 20;
const CONTENT = 'Hello from chat-realm';
const TOPIC = 'live events';

export function liveDemo(state: RealmState, watcher: User, now: number): LiveDemo | undefined {
  // Plain members first (the demo's King Hamlet): the message comes from an ordinary user.
  const senders = [...state.users.values()]
    .filter((u) => u.is_active && !u.is_bot && u.user_id !== watcher.user_id)
    .sort((a, b) => Number(b.role === 400) - Number(a.role === 400) || a.user_id - b.user_id)
    .slice(0, MAX_SENDERS);
  const channels = [...state.channels.values()]
    .filter((c) => state.subscriptions.get(c.stream_id)?.get(watcher.user_id)?.active === true)
    .slice(0, MAX_CHANNELS);
  const reaches = (sender: User, params: Parameters<typeof sendMessage>[2]): boolean => {
    const r = sendMessage(state, { userId: sender.user_id }, params, { now });
    return (
      r.status === 200 &&
      r.events.some((e) => e.event.type === 'message' && e.users.includes(watcher.user_id))
    );
  };
  for (const sender of senders) {
    for (const channel of channels) {
      const demo = { type: 'stream', to: channel.name, topic: TOPIC, content: CONTENT } as const;
      if (reaches(sender, demo)) return { sender, ...demo };
    }
  }
  for (const sender of senders) {
    const demo = { type: 'direct', to: `[${watcher.user_id}]`, content: CONTENT } as const;
    if (reaches(sender, demo)) return { sender, ...demo };
  }
  return undefined;
}
