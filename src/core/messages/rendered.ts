import { renderMarkdown } from '../markdown';
import { memoText } from '../text/memo';

/**
 * A message's `rendered_content` (HTML) from its Markdown source. Zulip renders once on send and
 * edit and stores the HTML; we keep the HTML of recently rendered contents in a bounded memo keyed
 * by the source text instead of a stored column, so the memory per message does not grow. The send
 * renders the new message for its event (warming the memo), every read of it then finds its HTML,
 * and an edit needs no invalidation: new text is a new key. Rendering is pure, so the memo is
 * invisible to callers; a snapshot load starts cold and renders each message on its first read.
 */
export const renderedContent: (content: string) => string = memoText(renderMarkdown, 32_768);
