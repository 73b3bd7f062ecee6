import { checkChannelName } from '../../../core/channels/check-channel-name';
import { errors, zulipError, type ZulipError } from '../../../core/errors';
import { renderMarkdown } from '../../../core/markdown';
import { pythonStrip } from '../../../core/text/whitespace';
import { streamUpdate } from './events';
import { noticeDescription, noticeRename } from './notices';
import type { Run } from './run';

/** Step 15: the description is always written (no no-op check). */
export function changeDescription(run: Run, requested: string | undefined): undefined {
  if (requested === undefined) return undefined;
  const description = requested.replaceAll('\n', ' ');
  const old = run.channel.description;
  run.update((c) => {
    c.description = description;
  });
  streamUpdate(run, 'description', description, { rendered_description: renderMarkdown(description) });
  noticeDescription(run, old, description);
  return undefined;
}

/** Step 16: the name. */
export function rename(run: Run, requested: string | undefined): ZulipError | undefined {
  if (requested === undefined) return undefined;
  const newName = pythonStrip(requested);
  const c = run.channel;
  if (newName === c.name) return errors.badRequest('Channel already has that name.');
  if (newName.toLowerCase() !== c.name.toLowerCase()) {
    // A case-only rename skips the name checks.
    const invalid = checkChannelName(newName, run.state.server.max_stream_name_length);
    if (invalid) return invalid;
    if (run.state.channelsByName.get(newName.toLowerCase()) !== undefined) {
      return zulipError(`Channel '${newName}' already exists`, 'CHANNEL_ALREADY_EXISTS', 409, {
        channel_name: newName,
      });
    }
  }
  const oldName = c.name;
  // This event carries the old name in `name`, so it is built before the rename (the name does not
  // decide who can see the channel, so the recipients are the same).
  streamUpdate(run, 'name', newName);
  run.update((d) => {
    d.name = newName;
  });
  noticeRename(run, oldName, newName);
  return undefined;
}
