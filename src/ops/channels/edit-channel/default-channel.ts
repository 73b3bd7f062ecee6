import { errors, type ZulipError } from '../../../core/errors';
import { isRealmAdmin } from '../../../core/permissions/roles';
import { defaultStreams } from './events';
import type { Run } from './run';

/** Step 11: only administrators change the default channels. */
export function changeDefault(run: Run, makeDefault: boolean | undefined): ZulipError | undefined {
  if (makeDefault === undefined) return undefined;
  if (!isRealmAdmin(run.user))
    return errors.badRequest('You do not have permission to change default channels.');
  const id = run.streamId;
  const was = run.state.defaultChannelIds.has(id);
  if (makeDefault && was) return undefined;
  run.edit((draft) => {
    draft.defaultChannelIds = makeDefault
      ? draft.defaultChannelIds.set(id, true)
      : draft.defaultChannelIds.delete(id);
  });
  defaultStreams(run);
  return undefined;
}
