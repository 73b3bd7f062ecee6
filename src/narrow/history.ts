import type { NarrowContext } from './context';
import { CHANNEL_OPS, CHANNELS_OPS } from './build-channel';
import { findChannel } from './resolve';
import type { NarrowTerm } from './terms';

/**
 * §3.2, Zulip's "include history" (`ok_to_include_history` in `zerver/lib/narrow.py`): a
 * non-negated accessible channel term (the last one wins) or `channels:public` /
 * `channels:web-public` for a user who can access public channels (not a guest), and no `is:` other
 * than resolved. Decided over all terms up front, before any term is applied,
 * because later terms can switch it back off.
 */
const HISTORY_CHANNELS = new Set(['public', 'web-public']);

export function includeHistory(ctx: NarrowContext, terms: readonly NarrowTerm[]): boolean {
  let include = false;
  for (const t of terms) {
    if (t.negated) continue;
    if (CHANNEL_OPS.has(t.operator)) {
      const channel = findChannel(ctx.state, t.operand);
      include = channel !== undefined && ctx.canReadHistory(channel);
    } else if (CHANNELS_OPS.has(t.operator) && HISTORY_CHANNELS.has(String(t.operand)) && !ctx.guest) {
      include = true;
    }
  }
  if (terms.some((t) => t.operator === 'is' && t.operand !== 'resolved')) include = false;
  return include;
}
