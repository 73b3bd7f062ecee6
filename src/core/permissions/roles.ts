import { Role, type User } from '../model/records';

export const isRealmOwner = (u: User): boolean => u.role === Role.owner;
export const isRealmAdmin = (u: User): boolean => u.role === Role.owner || u.role === Role.administrator;
export const isModerator = (u: User): boolean => u.role <= Role.moderator;
export const isGuest = (u: User): boolean => u.role === Role.guest;

/**
 * The system group a user belongs to directly, by role. Membership of the wider system groups
 * follows from the chain owners ⊂ administrators ⊂ moderators ⊂ fullmembers ⊂ members ⊂ everyone ⊂ internet.
 */
export function systemGroupRank(u: User): number {
  switch (u.role) {
    case Role.owner:
      return 1;
    case Role.administrator:
      return 2;
    case Role.moderator:
      return 3;
    case Role.member:
      return u.is_full_member ? 4 : 5;
    case Role.guest:
      return 6;
    default: {
      const never: never = u.role;
      return never;
    }
  }
}

/** Rank a system group covers: a user is in it when its rank ≤ this (nobody: 0, internet: 7). */
export const SYSTEM_GROUP_RANK = {
  'role:nobody': 0,
  'role:owners': 1,
  'role:administrators': 2,
  'role:moderators': 3,
  'role:fullmembers': 4,
  'role:members': 5,
  'role:everyone': 6,
  'role:internet': 7,
} as const;
