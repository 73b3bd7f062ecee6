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

/**
 * The HTML of a content column by position, for the columns read most recently: a fetch finds a
 * message's HTML by its place in its chunk (`HtmlReader`) instead of hashing its text into the
 * memo above, which cost two cache misses per message on a large heap. Keyed by the content array
 * itself: an entry of it never changes (chunks are immutable, the growing newest chunk's array
 * only gains entries past every state's end, and a fork or an edit copies it), so the HTML at a
 * position stays right for as long as the array lives. Bounded like the memo: at most
 * `COLUMNS_KEPT` columns (a chunk's worth of references each), the least recently used dropped,
 * so the memory per message does not grow.
 */
const COLUMNS_KEPT = 16;
const columns = new Map<readonly string[], Array<string | undefined>>();

function renderedColumn(content: readonly string[]): Array<string | undefined> {
  let column = columns.get(content);
  if (column !== undefined) {
    // Most recently used last (a fetch switches columns only a few times).
    columns.delete(content);
    columns.set(content, column);
    return column;
  }
  if (columns.size >= COLUMNS_KEPT) columns.delete(columns.keys().next().value!);
  // Preallocated to the array's length: filled at scattered positions, it stays a fast array.
  column = new Array<string | undefined>(content.length);
  columns.set(content, column);
  return column;
}

/** Reads `renderedContent` of stored messages by position, one column lookup per chunk switch. */
export class HtmlReader {
  private content: readonly string[] | undefined;
  private column: Array<string | undefined> = [];

  at(content: readonly string[], index: number): string {
    if (content !== this.content) {
      this.content = content;
      this.column = renderedColumn(content);
    }
    let html = this.column[index];
    if (html === undefined) {
      html = renderedContent(content[index]!);
      this.column[index] = html;
    }
    return html;
  }
}
