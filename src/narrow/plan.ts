import type { ZulipError } from '../core/errors';
import type { IdList } from '../core/messages/idlist';
import type { MessageChunk } from '../core/messages/store';
import type { NarrowContext } from './context';

/**
 * The evaluation plan `buildNarrow` hands to the evaluator: a conjunction of row-flag tests and
 * message tests, plus the smallest index list (channel, topic, conversation) or single id a
 * non-negated term restricts candidates to. Kept apart from the builder so the evaluator depends
 * on the plan's shape only, not on how terms are resolved.
 */
export interface FlagTest {
  readonly mask: number;
  /** true: some bit of `mask` is set; false: none is. */
  readonly set: boolean;
}

/** A test on one message: its chunk and index in the store. */
export type MessageTest = (c: MessageChunk, i: number) => boolean;

export interface NarrowPlan {
  readonly ctx: NarrowContext;
  /** Zulip's "include history": candidates are all messages, not only the user's rows. */
  readonly history: boolean;
  /** A term matches nothing (an empty id list for `dm`, an unknown group DM). */
  readonly empty: boolean;
  /** Candidates are limited to this index list (null: no such restriction). */
  readonly drive: IdList | null;
  /** The channel every message of `drive` is in (channel and topic lists), else null. */
  readonly driveChannel: number | null;
  /** `drive` is a direct-message conversation's list. */
  readonly driveConversation: boolean;
  /** Candidates are limited to this one id (an `id` term). */
  readonly single: number | null;
  readonly flagTests: readonly FlagTest[];
  /** Message tests other than those implied by `drive`. */
  readonly messageTests: readonly MessageTest[];
  /** The first channel term's channel (first_unread muting looks at it, negated or not), or null. */
  readonly channelTerm: number | null;
  /** A non-negated DM operator or is:dm was used (first_unread skips muting). */
  readonly dmNarrow: boolean;
}

export type BuildResult =
  { readonly ok: true; readonly plan: NarrowPlan } | { readonly ok: false; readonly error: ZulipError };
