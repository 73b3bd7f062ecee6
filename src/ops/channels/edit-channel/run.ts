import type { Draft } from 'immer';
import type { Effect } from '../../../core/effects';
import type { AddressedEvent } from '../../../core/events';
import type { Channel, User } from '../../../core/model/records';
import { edit, editRecord } from '../../../core/result';
import { putChannel } from '../../../core/state-edit';
import type { RealmState } from '../../../core/state';

/** The working copy a request is applied to, with the events and notices collected so far. */
export class Run {
  readonly events: AddressedEvent[] = [];
  readonly effects: Effect[] = [];
  constructor(
    public state: RealmState,
    readonly user: User,
    readonly streamId: number,
    readonly now: number,
  ) {}

  get channel(): Channel {
    return this.state.channels.get(this.streamId)!;
  }

  /** Every change of the working copy goes through here (the one immer wrapper). */
  edit(recipe: (draft: Draft<RealmState>) => void): void {
    this.state = edit(this.state, recipe);
  }

  update(recipe: (c: { -readonly [K in keyof Channel]: Channel[K] }) => void): void {
    const next = editRecord(this.channel, recipe);
    this.edit((draft) => putChannel(draft, next));
  }
}
