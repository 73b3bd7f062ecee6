import type { IdList } from '../core/messages/idlist';
import { conversationKey } from '../core/messages/interner';
import type { NarrowContext } from './context';
import type { FlagTest, MessageTest, NarrowPlan } from './plan';

/** A term the narrow cannot accept; `buildNarrow` turns it into Zulip's BAD_NARROW error. */
export class NarrowError {
  constructor(readonly desc: string) {}
}

/** An index list a non-negated term restricts candidates to. */
interface Candidate {
  readonly list: IdList;
  /** Indexes into the builder's message tests that the list implies. */
  readonly implies: readonly number[];
  readonly channel: number | null;
  /** A direct-message conversation's list (every message readable). */
  readonly conversation: boolean;
}

/** A positive topic term seen before any positive channel term: its list is chosen at the end. */
interface PendingTopic {
  readonly key: number | undefined;
  readonly at: number;
}

/**
 * What the operator families accumulate while terms are applied in order. Mutable on purpose: one
 * builder lives for one `buildNarrow` call, and each family appends to it as Zulip's term loop
 * adds clauses to its query.
 */
export class PlanBuilder {
  private readonly flagTests: FlagTest[] = [];
  private readonly tests: MessageTest[] = [];
  private readonly lists: Candidate[] = [];
  readonly pendingTopics: PendingTopic[] = [];
  empty = false;
  /** The id term's id; -1 when two id terms disagree (nothing matches). */
  single: number | null = null;
  /** The first channel term's channel, negated or not (first_unread muting). */
  channelTerm: number | null = null;
  /** The last non-negated channel term's channel and its test's index (topic lists hang off it). */
  positiveChannel: number | null = null;
  positiveChannelAt = -1;
  private channelMark = false;
  private dmMark = false;

  constructor(readonly ctx: NarrowContext) {}

  get me(): number {
    return this.ctx.user.user_id;
  }

  /** Records that the narrow asks for channel and/or direct messages; both at once is an error. */
  mark(channel: boolean, dm: boolean): void {
    this.channelMark ||= channel;
    this.dmMark ||= dm;
    if (this.channelMark && this.dmMark)
      throw new NarrowError('No message can be both a channel message and direct message');
  }

  /** Adds a message test (inverted when negated); returns its index, for `Candidate.implies`. */
  add(negated: boolean, test: MessageTest): number {
    this.tests.push(negated ? (c, i) => !test(c, i) : test);
    return this.tests.length - 1;
  }

  /** Offers an index list to drive candidates from; `implies` are the tests it makes redundant. */
  driveFrom(list: IdList, implies: readonly number[], channel: number | null, conversation = false): void {
    this.lists.push({ list, implies, channel, conversation });
  }

  addFlag(negated: boolean, mask: number, set: boolean): void {
    this.flagTests.push({ mask, set: negated ? !set : set });
  }

  /** A term that can match nothing empties the narrow, unless negated (then it excludes nothing). */
  matchNothing(negated: boolean): void {
    if (!negated) this.empty = true;
  }

  conversationOf(participants: Iterable<number>): number | undefined {
    return this.ctx.state.messages.conversations.ids.get(conversationKey(participants));
  }

  /** The plan: an id term beats any list (one candidate); otherwise the smallest list drives. */
  finish(history: boolean): NarrowPlan {
    const single = this.single;
    let drive: Candidate | null = null;
    if (single === null)
      for (const l of this.lists) if (drive === null || l.list.count < drive.list.count) drive = l;
    const implied = new Set(drive?.implies ?? []);
    return {
      ctx: this.ctx,
      history,
      empty: this.empty || single === -1,
      drive: drive?.list ?? null,
      driveChannel: drive?.channel ?? null,
      driveConversation: drive?.conversation ?? false,
      single: single === -1 ? null : single,
      flagTests: this.flagTests,
      messageTests: this.tests.filter((_, i) => !implied.has(i)),
      channelTerm: this.channelTerm,
      dmNarrow: this.dmMark,
    };
  }
}
