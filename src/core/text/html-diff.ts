/**
 * The word-level HTML diff of GET /messages/{id}/history's `content_html_diff` (Zulip's
 * `highlight_html_differences` in zerver/lib/html_diff.py, which runs lxml's `htmldiff` and turns
 * its `<ins>`/`<del>` into `<span class="highlight_text_inserted|deleted">` inside a `<div>`).
 * Written from the behaviour, not the code:
 *
 * - the HTML is cut into words, each carrying the tags before it (start and empty tags) and the
 *   end tags right after it; an end or empty tag followed by whitespace keeps one space;
 * - words are matched as Python's `difflib.SequenceMatcher` does (longest matching block first,
 *   "popular" words ignored from 200 words on), and matching runs of at most
 *   min(2, words / 4) words are not kept (lxml's `InsensitiveSequenceMatcher`);
 * - unchanged words come out with the new tags; inserted runs come first, then deleted runs, each
 *   in one span after a space, followed by a space; tags that would not balance inside a span stay
 *   outside it, and a span holding one whole block element (`<p>…</p>`) goes inside it.
 *
 * - a link's target is a token of its own before the link's end tag (lxml's `href_token`): hidden
 *   when unchanged, " Link: <target>" inside the span when inserted or deleted.
 *
 * Differences from lxml: deleted text keeps only its balanced markup (lxml may move a deletion
 * across tag boundaries), and entities are not re-serialized.
 */

interface Token {
  readonly pre: readonly string[];
  /** What words are matched by (a link's key starts with NUL, so that it matches only links). */
  readonly word: string;
  readonly ws: string;
  post: string[];
  /** A link target (lxml's `href_token`): shown as " Link: …" only when inserted or deleted. */
  readonly href?: string;
}

const EMPTY_TAGS = new Set(['br', 'hr', 'img', 'input', 'meta', 'link', 'area', 'base', 'col', 'wbr']);
const BLOCK_TAGS = new Set([
  'p',
  'div',
  'li',
  'ul',
  'ol',
  'blockquote',
  'pre',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'table',
]);

const tagName = (tag: string) => /^<\/?([a-zA-Z0-9]+)/.exec(tag)?.[1]?.toLowerCase() ?? '';
const isEndTag = (tag: string) => tag.startsWith('</');

/** Words with their tags. */
export function tokenizeHtml(html: string): Token[] {
  const parts = html.split(/(<[^>]*>)/).filter((p) => p !== '');
  const tokens: Token[] = [];
  let pending: string[] = [];
  let last: Token | undefined;
  // The targets of the open <a> tags: a link's target is a token of its own before its end tag.
  const links: Array<string | undefined> = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part.startsWith('<')) {
      const next = parts[i + 1];
      const space = next !== undefined && !next.startsWith('<') && /^\s/.test(next) ? ' ' : '';
      const name = tagName(part);
      if (name === 'a' && !isEndTag(part)) links.push(/\shref="([^"]*)"/.exec(part)?.[1] || undefined);
      const href = name === 'a' && isEndTag(part) ? links.pop() : undefined;
      if (href !== undefined) {
        last = { pre: pending, word: `\u0000${href}`, ws: ' ', post: [part + space], href };
        pending = [];
        tokens.push(last);
      } else if (isEndTag(part)) {
        // An end tag right after a word closes it; otherwise it waits for the next word.
        if (last !== undefined && pending.length === 0) last.post.push(part + space);
        else pending.push(part + space);
      } else pending.push(EMPTY_TAGS.has(name) ? part + space : part);
      continue;
    }
    for (const m of part.matchAll(/(\S+)(\s*)/g)) {
      last = { pre: pending, word: m[1]!, ws: m[2]!, post: [] };
      pending = [];
      tokens.push(last);
    }
  }
  if (pending.length > 0) {
    // Tags after the last word: its end tags (or a word-less token carrying them).
    if (last !== undefined) last.post.push(...pending);
    else tokens.push({ pre: pending, word: '', ws: '', post: [] });
  }
  return tokens;
}

type Block = readonly [number, number, number];

/** `difflib.SequenceMatcher(None, a, b).get_matching_blocks()` (with its autojunk), as [i, j, size]. */
export function matchingBlocks(a: readonly string[], b: readonly string[]): Block[] {
  const b2j = new Map<string, number[]>();
  b.forEach((w, j) => {
    const list = b2j.get(w);
    if (list) list.push(j);
    else b2j.set(w, [j]);
  });
  if (b.length >= 200) {
    const popular = Math.floor(b.length / 100) + 1;
    for (const [w, list] of b2j) if (list.length > popular) b2j.delete(w);
  }
  const longest = (alo: number, ahi: number, blo: number, bhi: number): Block => {
    let besti = alo;
    let bestj = blo;
    let best = 0;
    let j2len = new Map<number, number>();
    for (let i = alo; i < ahi; i++) {
      const next = new Map<number, number>();
      for (const j of b2j.get(a[i]!) ?? []) {
        if (j < blo) continue;
        if (j >= bhi) break;
        const k = (j2len.get(j - 1) ?? 0) + 1;
        next.set(j, k);
        if (k > best) [besti, bestj, best] = [i - k + 1, j - k + 1, k];
      }
      j2len = next;
    }
    // difflib's extension over equal neighbours (only "popular" words, left out of b2j, can add).
    while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) {
      besti--;
      bestj--;
      best++;
    }
    while (besti + best < ahi && bestj + best < bhi && a[besti + best] === b[bestj + best]) best++;
    return [besti, bestj, best];
  };
  const found: Block[] = [];
  const queue: Array<[number, number, number, number]> = [[0, a.length, 0, b.length]];
  while (queue.length > 0) {
    const [alo, ahi, blo, bhi] = queue.pop()!;
    const m = longest(alo, ahi, blo, bhi);
    const [i, j, k] = m;
    if (k === 0) continue;
    found.push(m);
    if (alo < i && blo < j) queue.push([alo, i, blo, j]);
    if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
  }
  found.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  // Adjacent blocks merge.
  const merged: Block[] = [];
  for (const m of found) {
    const prev = merged[merged.length - 1];
    if (prev !== undefined && prev[0] + prev[2] === m[0] && prev[1] + prev[2] === m[1])
      merged[merged.length - 1] = [prev[0], prev[1], prev[2] + m[2]];
    else merged.push(m);
  }
  merged.push([a.length, b.length, 0]);
  return merged;
}

/** Tags that do not balance within `chunks` stay outside a span (lxml's `split_unbalanced`). */
function splitUnbalanced(chunks: readonly string[]): { start: string[]; balanced: string[]; end: string[] } {
  const start: string[] = [];
  const end: string[] = [];
  const stack: Array<{ name: string; at: number; tag: string }> = [];
  const balanced: Array<string | null> = [];
  for (const chunk of chunks) {
    if (!chunk.startsWith('<')) {
      balanced.push(chunk);
      continue;
    }
    const name = tagName(chunk);
    if (EMPTY_TAGS.has(name)) {
      balanced.push(chunk);
    } else if (isEndTag(chunk)) {
      const top = stack[stack.length - 1];
      if (top !== undefined && top.name === name) {
        balanced.push(chunk);
        balanced[top.at] = top.tag;
        stack.pop();
      } else {
        if (stack.length > 0) start.push(...stack.splice(0).map((s) => s.tag));
        end.push(chunk);
      }
    } else {
      stack.push({ name, at: balanced.length, tag: chunk });
      balanced.push(null);
    }
  }
  start.push(...stack.map((s) => s.tag));
  return { start, balanced: balanced.filter((c): c is string => c !== null), end };
}

/** Tokens back to HTML chunks; an unchanged link's target is not shown (`hide_when_equal`). */
const expand = (tokens: readonly Token[], equal = false): string[] =>
  tokens.flatMap((t) => {
    const text = t.href !== undefined ? (equal ? '' : ` Link: ${t.href}${t.ws}`) : t.word + t.ws;
    return [...t.pre, ...(t.word === '' || text === '' ? [] : [text]), ...t.post];
  });

/** One span of inserted or deleted chunks; returns the tags that go after it. */
function emitSpan(out: string[], chunks: readonly string[], kind: 'inserted' | 'deleted'): string[] {
  const { start, balanced, end } = splitUnbalanced(chunks);
  // A deletion's stray tags are dropped: the new document's structure stands.
  if (kind === 'inserted') out.push(...start);
  if (balanced.length === 0) return end;
  const lastIndex = out.length - 1;
  if (lastIndex >= 0 && !out[lastIndex]!.endsWith(' ')) out[lastIndex] += ' ';
  const body = balanced.slice();
  const li = body.length - 1;
  if (body[li]!.endsWith(' ')) body[li] = body[li]!.slice(0, -1);
  const open = `<span class="highlight_text_${kind}">`;
  const first = body[0]!;
  const lastChunk = body[li]!;
  // One whole block element: the span goes inside it.
  if (
    body.length >= 2 &&
    first.startsWith('<') &&
    !isEndTag(first) &&
    BLOCK_TAGS.has(tagName(first)) &&
    lastChunk === `</${tagName(first)}>` &&
    splitUnbalanced(body.slice(1, -1)).start.length === 0 &&
    splitUnbalanced(body.slice(1, -1)).end.length === 0
  )
    out.push(first, open, ...body.slice(1, -1), '</span>', `${lastChunk} `);
  else out.push(open, ...body, '</span> ');
  return end;
}

/** `highlight_html_differences`: the new HTML with inserted and deleted words highlighted, in a `<div>`. */
export function highlightHtmlDifferences(before: string, after: string): string {
  const a = tokenizeHtml(before);
  const b = tokenizeHtml(after);
  const words = (ts: readonly Token[]) => ts.map((t) => t.word);
  const threshold = Math.min(2, b.length / 4);
  const blocks = matchingBlocks(words(a), words(b)).filter(([, , k]) => k > threshold || k === 0);
  const out: string[] = [];
  let i = 0;
  let j = 0;
  for (const [ai, bj, size] of blocks) {
    let deferred: string[] = [];
    if (j < bj) deferred = emitSpan(out, expand(b.slice(j, bj)), 'inserted');
    if (i < ai) emitSpan(out, expand(a.slice(i, ai)), 'deleted');
    out.push(...deferred);
    out.push(...expand(b.slice(bj, bj + size), true));
    i = ai + size;
    j = bj + size;
  }
  return `<div>${out.join('').trim()}</div>`;
}
