/**
 * Evaluates a narrow plan for its user in message-id order from an anchor, in both directions,
 * without scanning the organization: candidates come from the smallest index list the narrow
 * allows (a topic, a channel, a conversation), else from the user's own rows (or, in history
 * mode, every message). The parts: candidate selection (`source.ts`, `access.ts`), the scan
 * (`scan.ts`, `scan-start.ts`, `cursors.ts`, `flag-masks.ts`), the window around an anchor
 * (`window.ts`) and the first_unread anchor (`first-unread.ts`). This module keeps the public
 * names importable from where they have always been.
 */
export { NEWEST, selectWindow, type Selection } from './window';
export { NO_ROW_FLAGS } from './scan';
export { firstUnreadAnchor } from './first-unread';
