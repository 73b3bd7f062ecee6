import { lexemeOf } from './text';

/**
 * Zulip's `match_content` / `match_subject`: the rendered HTML (or the HTML-escaped topic) with
 * each word whose lexeme the query has wrapped in `<span class="highlight">` (Zulip's
 * `highlight_string` over `ts_match_locs_array`). Words inside tags and entities are not words
 * (PostgreSQL's parser skips them), so markup is never split.
 */
const HIGHLIGHT_START = '<span class="highlight">';
const HIGHLIGHT_END = '</span>';

/** A tag, an entity, or a word. */
const TOKEN = /<[^>]*>|&#?[A-Za-z0-9]+;|[\p{L}\p{M}\p{N}]+/gu;

export function highlightHtml(html: string, lexemes: ReadonlySet<string>): string {
  if (lexemes.size === 0) return html;
  let out = '';
  let pos = 0;
  for (const m of html.matchAll(TOKEN)) {
    const word = m[0];
    const first = word.charCodeAt(0);
    if (first === 60 /* < */ || first === 38 /* & */) continue;
    const l = lexemeOf(word.toLowerCase());
    if (l === null || !lexemes.has(l)) continue;
    out += html.slice(pos, m.index) + HIGHLIGHT_START + word + HIGHLIGHT_END;
    pos = m.index + word.length;
  }
  return pos === 0 ? html : out + html.slice(pos);
}

/** Zulip's SQL `escape_html` (the topic is escaped before it is highlighted). */
export function escapeHtmlTopic(topic: string): string {
  return topic
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}
