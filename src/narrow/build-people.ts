import { EMPTY_IDS } from '../core/messages/idlist';
import { NarrowError, type PlanBuilder } from './plan-builder';
import { findUser, resolveUserList } from './resolve';
import { pyStr, type NarrowTerm, type Operand } from './terms';

/**
 * The people family: `sender`, `dm` (and its legacy names), `dm-including` and `group-pm-with`.
 * `sender` and `dm` have index lists to drive from; the membership operators only filter.
 */

export function applySender(b: PlanBuilder, { operand, negated }: NarrowTerm): void {
  const id = userOperand(b, operand);
  const at = b.add(negated, (c, i) => c.sender[i] === id);
  if (!negated) b.driveFrom(b.ctx.state.messages.bySender.get(id) ?? EMPTY_IDS, [at], null);
}

export function applyDm(b: PlanBuilder, { operand, negated }: NarrowTerm): void {
  b.mark(false, !negated);
  const others = resolveUserList(b.ctx.state, operand);
  if (others === null) throw new NarrowError(`unknown user in ${pyStr(operand)}`);
  // An empty list names no conversation: nothing matches, and its negation excludes nothing.
  if (others.length === 0) {
    b.matchNothing(negated);
    return;
  }
  const cid = b.conversationOf([...others, b.me]);
  if (cid === undefined) {
    b.matchNothing(negated);
    return;
  }
  const at = b.add(negated, (c, i) => c.recipient[i] === -cid);
  if (!negated) b.driveFrom(b.ctx.state.messages.byConversation.get(cid) ?? EMPTY_IDS, [at], null, true);
}

export function applyDmIncluding(b: PlanBuilder, { operand, negated }: NarrowTerm): void {
  b.mark(false, !negated);
  const id = userOperand(b, operand);
  const ctx = b.ctx;
  // The user is in every one of their own conversations: any DM matches.
  if (id === b.me) b.add(negated, (c, i) => c.recipient[i]! < 0);
  else b.add(negated, (c, i) => c.recipient[i]! < 0 && ctx.members(-c.recipient[i]!).includes(id));
}

export function applyGroupPmWith(b: PlanBuilder, { operand, negated }: NarrowTerm): void {
  b.mark(false, !negated);
  const id = userOperand(b, operand);
  const me = b.me;
  const ctx = b.ctx;
  b.add(negated, (c, i) => {
    if (c.recipient[i]! >= 0) return false;
    const m = ctx.members(-c.recipient[i]!);
    return m.length >= 3 && m.includes(id) && m.includes(me);
  });
}

/** The user id of a one-user operand (email or id); an unknown user is BAD_NARROW. */
function userOperand(b: PlanBuilder, operand: Operand): number {
  const user = findUser(b.ctx.state, operand);
  if (user === undefined) throw new NarrowError(`unknown user ${pyStr(operand)}`);
  return user.user_id;
}
