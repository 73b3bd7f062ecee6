import type { Channel, User } from '../core/model/records';
import type { RealmState } from '../core/state';
import { intOperand, type Operand } from './terms';

/**
 * Operand resolution shared by the operator families: names and ids to records, with no access
 * checks (access is the evaluator's business; an unknown name is the builder's BAD_NARROW).
 */

/** Resolves a channel operand (name, case-insensitive and trimmed, or id) without access checks. */
export function findChannel(state: RealmState, operand: Operand): Channel | undefined {
  if (typeof operand === 'string') {
    const id = state.channelsByName.get(operand.trim().toLowerCase());
    return id === undefined ? undefined : state.channels.get(id);
  }
  const id = intOperand(operand);
  return id === undefined ? undefined : state.channels.get(id);
}

/** Resolves a user operand: an email (case-insensitive, not trimmed, as Zulip) or an id. */
export function findUser(state: RealmState, operand: Operand): User | undefined {
  if (typeof operand === 'string') {
    const id = state.usersByEmail.get(operand.toLowerCase());
    return id === undefined ? undefined : state.users.get(id);
  }
  const id = intOperand(operand);
  return id === undefined ? undefined : state.users.get(id);
}

/** User ids of a `dm` operand (emails, comma-separated, or ids), or null when one is unknown. */
export function resolveUserList(state: RealmState, operand: Operand): number[] | null {
  const out: number[] = [];
  if (Array.isArray(operand)) {
    for (const id of operand) {
      if (!state.users.has(id)) return null;
      out.push(id);
    }
    return out;
  }
  if (typeof operand !== 'string') return null;
  for (const email of operand.split(',')) {
    const id = state.usersByEmail.get(email.toLowerCase());
    if (id === undefined) return null;
    out.push(id);
  }
  return out;
}
