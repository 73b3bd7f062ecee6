import { streamToDict } from '../../../core/channels/stream-dict';
import { to } from '../../../core/events';
import { metadataAccessUserIds, subscriberIds } from '../../../core/permissions/channels';
import { activeNonGuestUserIds } from '../../../core/users/realm-users';
import type { Run } from './run';

/** Zulip's `{op:'update', type:'stream'}` event to everyone who can see the channel's metadata. */
export function streamUpdate(
  run: Run,
  property: string,
  value: unknown,
  extra: Record<string, unknown> = {},
  users?: Iterable<number>,
): void {
  const c = run.channel;
  run.events.push(
    to(users ?? metadataAccessUserIds(run.state, c), {
      type: 'stream',
      op: 'update',
      property,
      value,
      ...extra,
      stream_id: c.stream_id,
      name: c.name,
    }),
  );
}

export function streamCreate(run: Run, users: Iterable<number>, forUnarchiving: boolean): void {
  run.events.push(
    to(users, {
      type: 'stream',
      op: 'create',
      streams: [streamToDict(run.state, run.channel, run.now)],
      for_unarchiving: forUnarchiving,
    }),
  );
}

export function peerAdd(run: Run, users: Iterable<number>): void {
  run.events.push(
    to(users, {
      type: 'subscription',
      op: 'peer_add',
      stream_ids: [run.streamId],
      user_ids: subscriberIds(run.state, run.streamId),
    }),
  );
}

/** The channel disappears for users who lost metadata access. */
export function streamDelete(run: Run, users: Iterable<number>): void {
  run.events.push(
    to(users, {
      type: 'stream',
      op: 'delete',
      streams: [{ stream_id: run.streamId }],
      stream_ids: [run.streamId],
      for_archiving: false,
    }),
  );
}

export function defaultStreams(run: Run): void {
  const { state } = run;
  run.events.push(
    to(activeNonGuestUserIds(state), {
      type: 'default_streams',
      default_streams: [...state.defaultChannelIds.keys()],
    }),
  );
}
