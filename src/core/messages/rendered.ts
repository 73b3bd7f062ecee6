import { renderMarkdown } from '../markdown';
import { memoText } from '../text/memo';
import { MESSAGE_CHUNK, type MessageStore } from './store-types';
import type { Reaction } from '../model/records';

/**
 * A message's `rendered_content` (HTML) from its Markdown source. Zulip renders once on send and
 * edit and stores the HTML; we keep the HTML of recently rendered contents in a bounded memo keyed
 * by the source text instead of a stored column, so the memory per message does not grow. The send
 * renders the new message for its event (warming the memo), every read of it then finds its HTML,
 * and an edit needs no invalidation: new text is a new key. Rendering is pure, so the memo is
 * invisible to callers; a snapshot load starts cold and renders each message on its first read.
 */
export const renderedContent: (content: string) => string = memoText(renderMarkdown, 32_768);

/** Zulip's `is_me_message`: a one-line message opening with `/me `. */
export function isMeMessage(content: string): boolean {
  return content.startsWith('/me ') && !content.includes('\n');
}

/**
 * What a read derives from a content column, by position: the HTML (undefined until first read)
 * and `is_me_message` (0 not yet known, 1 no, 2 yes). A fetch finds both by a message's place in
 * its chunk (`ContentReader`) instead of hashing its text into the memo above and reading the
 * text itself: two to three cache misses per message on a large heap.
 */
interface Derived {
  readonly html: Array<string | undefined>;
  readonly me: Uint8Array;
  /**
   * Ready-made message dicts by position (`channelDictAt`'s templates, Zulip's cached
   * `MessageDict.wide_dict`), made on a column's first templated read and valid only for the
   * `templatesFor` key they were built under (whatever else a dict reads: users, channels, realm,
   * the request's options); a read under another key empties them first.
   */
  templates: Array<ChannelDictTemplate | undefined> | undefined;
  templatesFor: TemplateKey | undefined;
}

/**
 * A kept channel message dict (`channelDictAt`'s template): the wire dict's fields in its key
 * order, flags included (the reader's are set on each copy). Typed field by field so a copy is
 * one object literal read from it (see `channelDictAt`).
 */
export type ChannelDictTemplate = {
  readonly id: number;
  readonly sender_id: number;
  readonly content: string;
  readonly recipient_id: number;
  readonly timestamp: number;
  readonly client: string;
  readonly subject: string;
  readonly topic_links: readonly never[];
  readonly is_me_message: boolean;
  readonly reactions: readonly Reaction[];
  readonly submessages: readonly never[];
  readonly sender_full_name: string;
  readonly sender_email: string;
  readonly sender_realm_str: string;
  readonly display_recipient: string;
  readonly type: 'stream';
  readonly stream_id: number;
  readonly avatar_url: string | null;
  readonly content_type: string;
  readonly flags: readonly string[];
};

/** What a column's templates were built under: compared field by field, once per column switch. */
export interface TemplateKey {
  readonly users: unknown;
  readonly channels: unknown;
  readonly realm: unknown;
  readonly variant: number;
}

/**
 * Keyed by the content array itself: an entry of it never changes (chunks are immutable, the
 * growing newest chunk's array only gains entries past every state's end, and a fork or an edit
 * copies it), so what is derived at a position stays right for as long as the array lives.
 * Bounded like the memo: at most `COLUMNS_KEPT` columns (a chunk's worth each), the least
 * recently used dropped, so the memory per message does not grow.
 */
const COLUMNS_KEPT = 16;
const columns = new Map<readonly string[], Derived>();

/** The most recently used column: sends and fetches of recent messages ask for it again and again. */
let lastContent: readonly string[] | undefined;
let lastColumn: Derived | undefined;

function derivedColumn(content: readonly string[]): Derived {
  // Already the most recently used (the map's last entry): nothing to reorder.
  if (content === lastContent) return lastColumn!;
  let column = columns.get(content);
  lastContent = content;
  if (column !== undefined) {
    lastColumn = column;
    // Most recently used last (a fetch switches columns only a few times).
    columns.delete(content);
    columns.set(content, column);
    return column;
  }
  if (columns.size >= COLUMNS_KEPT) columns.delete(columns.keys().next().value!);
  // Sized for a full chunk (the newest one's array grows up to it): filled at scattered
  // positions, the HTML array stays a fast one.
  const size = Math.max(content.length, MESSAGE_CHUNK);
  column = {
    html: new Array<string | undefined>(size),
    me: new Uint8Array(size),
    templates: undefined,
    templatesFor: undefined,
  };
  columns.set(content, column);
  lastColumn = column;
  return column;
}

/**
 * The HTML of the message being stored at `index` of the newest chunk's `content` column, rendered
 * once into that column's derived HTML (Zulip renders on send and stores `rendered_content`), where
 * reads of recent messages look first. Not into the text-keyed memo: hashing each new message's
 * text into a 32k-entry map cost a send more than rendering a short message does.
 */
export function renderStored(content: readonly string[], index: number): string {
  const column = derivedColumn(content);
  let html = column.html[index];
  if (html === undefined) {
    html = renderMarkdown(content[index]!);
    column.html[index] = html;
  }
  return html;
}

/** A reader's column before its first switch (never written: every read switches first). */
const NO_COLUMN: Derived = { html: [], me: new Uint8Array(0), templates: undefined, templatesFor: undefined };

/**
 * Reads what `channelDictAt` derives from stored contents, one column lookup per chunk switch.
 * Only the newest `COLUMNS_KEPT` chunks' worth of ids get columns: reads of older history (rarer,
 * and spread over more chunks than the cache keeps) take the memo as before instead of
 * allocating a column at every chunk switch.
 */
export class ContentReader {
  private content: readonly string[] | undefined;
  private column: Derived = NO_COLUMN;
  /** The column and key `templates` last checked (no comparisons while they stay the same). */
  private keyedColumn: Derived | undefined;
  private checkedKey: TemplateKey | undefined;
  /** Messages with a larger id use the columns. */
  private readonly columnsFrom: number;

  constructor(store: MessageStore) {
    this.columnsFrom = store.lastId - COLUMNS_KEPT * MESSAGE_CHUNK;
  }

  private switchTo(content: readonly string[]): Derived {
    if (content !== this.content) {
      this.content = content;
      this.column = derivedColumn(content);
    }
    return this.column;
  }

  /** `renderedContent(content[index])` of message `id`. */
  html(content: readonly string[], index: number, id: number): string {
    if (id <= this.columnsFrom) return renderedContent(content[index]!);
    const column = this.switchTo(content);
    let html = column.html[index];
    if (html === undefined) {
      html = renderedContent(content[index]!);
      column.html[index] = html;
    }
    return html;
  }

  /**
   * The template slots of message `id`'s column, emptied first if they were built under another
   * key; undefined for older history (no column), where every dict is built afresh.
   */
  templates(
    content: readonly string[],
    id: number,
    key: TemplateKey,
  ): Array<ChannelDictTemplate | undefined> | undefined {
    if (id <= this.columnsFrom) return undefined;
    const column = this.switchTo(content);
    // Checked once per column switch: a window reads runs of messages from one column.
    if (column === this.keyedColumn && key === this.checkedKey) return column.templates;
    this.keyedColumn = column;
    this.checkedKey = key;
    const was = column.templatesFor;
    if (
      was === undefined ||
      was.users !== key.users ||
      was.channels !== key.channels ||
      was.realm !== key.realm ||
      was.variant !== key.variant
    ) {
      column.templatesFor = key;
      column.templates = new Array<ChannelDictTemplate | undefined>(column.html.length);
    }
    return column.templates;
  }

  /** `isMeMessage(content[index])` of message `id`. */
  isMe(content: readonly string[], index: number, id: number): boolean {
    if (id <= this.columnsFrom) return isMeMessage(content[index]!);
    const column = this.switchTo(content);
    let known = column.me[index];
    if (known === undefined || known === 0) {
      known = isMeMessage(content[index]!) ? 2 : 1;
      if (index < column.me.length) column.me[index] = known;
    }
    return known === 2;
  }
}
