/**
 * A deliberately tiny Markdown renderer for the few places the engine must produce Zulip's
 * `rendered_*` HTML without a message pipeline (custom profile field values, channel descriptions).
 *
 * Supported: paragraphs (blank-line separated; a single newline becomes `<br>` as in Zulip),
 * `***bold italic***`, `**bold**`, `*italic*`, `~~strike~~`, `` `code` ``, `[text](http(s)/mailto url)`,
 * backslash escapes, and HTML escaping of everything else. Not supported (rendered as escaped text):
 * headings, lists, quotes, code blocks, tables, mentions, emoji, linkifiers, auto-linked bare URLs,
 * LaTeX. Those differences are recorded in docs/differences/users.md.
 */

/** Escapes text content the way Python-Markdown does (`&`, `<`, `>`; quotes stay). */
export function escapeHtmlText(s: string): string {
  return s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** Escapes an attribute value (also `"`). */
export function escapeHtmlAttribute(s: string): string {
  return escapeHtmlText(s).replaceAll('"', '&quot;');
}

interface InlineRule {
  readonly pattern: RegExp;
  readonly render: (m: RegExpExecArray) => string;
}

const SAFE_URL = /^(?:https?:\/\/|mailto:)/i;

const INLINE_RULES: readonly InlineRule[] = [
  { pattern: /\\([\\`*_{}[\]()#+\-.!~])/, render: (m) => escapeHtmlText(m[1]!) },
  { pattern: /`([^`]+)`/, render: (m) => `<code>${escapeHtmlText(m[1]!)}</code>` },
  {
    pattern: /\[([^\]]+)\]\(([^()\s]+)\)/,
    render: (m) =>
      SAFE_URL.test(m[2]!)
        ? `<a href="${escapeHtmlAttribute(m[2]!)}">${renderInline(m[1]!)}</a>`
        : escapeHtmlText(m[0]),
  },
  {
    pattern: /\*\*\*(?=\S)([\s\S]*?\S)\*\*\*/,
    render: (m) => `<strong><em>${renderInline(m[1]!)}</em></strong>`,
  },
  { pattern: /\*\*(?=\S)([\s\S]*?\S)\*\*/, render: (m) => `<strong>${renderInline(m[1]!)}</strong>` },
  { pattern: /~~(?=\S)([\s\S]*?\S)~~/, render: (m) => `<del>${renderInline(m[1]!)}</del>` },
  { pattern: /\*(?=[^\s*])([^*]*?[^\s*]|[^\s*])\*/, render: (m) => `<em>${renderInline(m[1]!)}</em>` },
];

/** Renders one paragraph's inline Markdown: the earliest match wins, ties go to the earlier rule. */
export function renderInline(text: string): string {
  let out = '';
  let rest = text;
  while (rest.length > 0) {
    let best: { m: RegExpExecArray; rule: InlineRule } | undefined;
    for (const rule of INLINE_RULES) {
      const m = rule.pattern.exec(rest);
      if (m && (best === undefined || m.index < best.m.index)) best = { m, rule };
    }
    if (best === undefined) return out + escapeHtmlText(rest);
    out += escapeHtmlText(rest.slice(0, best.m.index)) + best.rule.render(best.m);
    rest = rest.slice(best.m.index + best.m[0].length);
  }
  return out;
}

/**
 * Text with none of the characters any rule below reacts to (line breaks, the inline rules'
 * openers, the escaped `&<>`): it renders as itself in one paragraph. Most chat messages are such
 * text, and a send renders every one.
 */
const PLAIN = /^[^\n\r\\`[*~&<>]*$/;

/** Renders Markdown to HTML; the empty (or blank) text renders to "". */
export function renderMarkdown(text: string): string {
  if (PLAIN.test(text)) return text.trim() === '' ? '' : `<p>${text}</p>`;
  const normalized = text.replace(/\r\n?/g, '\n');
  if (normalized.trim() === '') return '';
  return normalized
    .split(/\n[ \t]*\n/)
    .map((p) => p.replace(/^\n+|\n+$/g, ''))
    .filter((p) => p.trim() !== '')
    .map((p) => `<p>${p.split('\n').map(renderInline).join('<br>\n')}</p>`)
    .join('\n');
}
