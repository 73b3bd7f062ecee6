/**
 * The narrow engine: Zulip's narrow syntax (`parseNarrow`), its resolution for one user into a
 * plan (`buildNarrow`, with Zulip's BAD_NARROW errors) and its evaluation over the message store in
 * id order from an anchor (`selectWindow`, `firstUnreadAnchor`).
 */
export { parseNarrow, type NarrowTerm, type Operand, type TermsResult } from './terms';
export {
  buildNarrow,
  badNarrow,
  type NarrowPlan,
  type BuildResult,
  type FlagTest,
  type MessageTest,
} from './build';
export { selectWindow, firstUnreadAnchor, NEWEST, NO_ROW_FLAGS, type Selection } from './evaluate';
export { NarrowContext, excludedFromHome, type Muting } from './context';
