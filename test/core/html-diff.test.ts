import { describe, expect, it } from 'vitest';
import { highlightHtmlDifferences, matchingBlocks } from '../../src/core/text/html-diff';

/**
 * `content_html_diff` (zerver/lib/html_diff.py `highlight_html_differences`: lxml's `htmldiff`,
 * `<ins>`/`<del>` as highlight spans in a `<div>`). The first case is test_message_edit.py's
 * `test_edit_message_history`; the others are the outputs Zulip's function gives for them (lxml 4.9).
 */
const CASES: Array<[string, string, string]> = [
  [
    '<p>content before edit</p>',
    '<p>content after edit</p>',
    '<div><p>content <span class="highlight_text_inserted">after</span> <span class="highlight_text_deleted">before</span> edit</p></div>',
  ],
  [
    '<p>a</p>',
    '<p>b</p>',
    '<div><p><span class="highlight_text_inserted">b</span></p> <p><span class="highlight_text_deleted">a</span></p></div>',
  ],
  [
    '<p>a b</p>',
    '<p>a c</p>',
    '<div><p>a <span class="highlight_text_inserted">c</span> <span class="highlight_text_deleted">b</span> </p></div>',
  ],
  [
    '<p>hello world</p>',
    '<p>hello <strong>big</strong> world</p>',
    '<div><p>hello <span class="highlight_text_inserted"><strong>big</strong></span> world</p></div>',
  ],
  [
    '<p>one</p>',
    '<p>one</p>\n<p>two</p>',
    '<div><p>one</p> <p><span class="highlight_text_inserted">two</span></p></div>',
  ],
  ['<p>x y z</p>', '<p>x z</p>', '<div><p>x <span class="highlight_text_deleted">y</span> z</p></div>'],
  [
    '<p>a b c d e f g h i j</p>',
    '<p>a b X d e f g h Y j</p>',
    '<div><p> <span class="highlight_text_inserted">a b X</span> <span class="highlight_text_deleted">a b c</span> d e f g h <span class="highlight_text_inserted">Y j</span> <span class="highlight_text_deleted">i j</span> </p></div>',
  ],
  [
    '<p>hello <strong>big</strong> world</p>',
    '<p>hello <strong>big</strong> world!</p>',
    '<div><p>hello <strong>big</strong> <span class="highlight_text_inserted">world!</span> <span class="highlight_text_deleted">world</span> </p></div>',
  ],
  [
    '<p>a\nb</p>',
    '<p>a\nc</p>',
    '<div><p>a\n <span class="highlight_text_inserted">c</span> <span class="highlight_text_deleted">b</span> </p></div>',
  ],
  ['<p>a  b</p>', '<p>a  b c</p>', '<div><p>a  b <span class="highlight_text_inserted">c</span> </p></div>'],
  [
    '<p>one</p>\n<p>two</p>',
    '<p>one</p>\n<p>three</p>',
    '<div><p>one</p> <p><span class="highlight_text_inserted">three</span></p> <p><span class="highlight_text_deleted">two</span></p></div>',
  ],
  [
    '<p>a<br>\nb</p>',
    '<p>a<br>\nc</p>',
    '<div><p>a <span class="highlight_text_inserted"><br> c</span> <span class="highlight_text_deleted"><br> b</span> </p></div>',
  ],
  [
    '<p>Sunny</p>',
    '<p>Fixed</p>',
    '<div><p><span class="highlight_text_inserted">Fixed</span></p> <p><span class="highlight_text_deleted">Sunny</span></p></div>',
  ],
  [
    '<p>The quick brown fox jumps over the lazy dog</p>',
    '<p>The quick red fox jumped over the dog</p>',
    '<div><p><span class="highlight_text_inserted">The quick red fox jumped over the dog</span></p> <p><span class="highlight_text_deleted">The quick brown fox jumps over the lazy dog</span></p></div>',
  ],
  ['<p>same</p>', '<p>same</p>', '<div><p>same</p></div>'],
  [
    '<p>first line<br>\nsecond line</p>',
    '<p>first line<br>\nsecond line<br>\nthird line</p>',
    '<div><p>first line<br> second line <span class="highlight_text_inserted"><br> third line</span> </p></div>',
  ],
  [
    '<ul>\n<li>one</li>\n<li>two</li>\n</ul>',
    '<ul>\n<li>one</li>\n<li>two</li>\n<li>three</li>\n</ul>',
    '<div><ul><li>one</li> <li>two</li> <li><span class="highlight_text_inserted">three</span></li> </ul></div>',
  ],
  [
    '<p><em>a b</em> c</p>',
    '<p><em>a d</em> c</p>',
    '<div><p><em>a <span class="highlight_text_inserted">d</span> <span class="highlight_text_deleted">b</span> </em> c</p></div>',
  ],
  // Links: the target is a token of its own, shown only when it changes (lxml's `href_token`).
  [
    '<p><a href="https://a.com">site</a></p>',
    '<p><a href="https://b.com">site</a></p>',
    '<div><p><a href="https://b.com">site <span class="highlight_text_inserted"> Link: https://b.com</span> <span class="highlight_text_deleted"> Link: https://a.com</span> </a></p></div>',
  ],
  [
    '<p>see <a href="https://a.com">site</a> now</p>',
    '<p>see <a href="https://b.com">site</a> now</p>',
    '<div><p>see <a href="https://b.com">site <span class="highlight_text_inserted"> Link: https://b.com now</span> <span class="highlight_text_deleted"> Link: https://a.com now</span> </a> </p></div>',
  ],
  [
    '<p>see <a href="https://a.com">site</a> now</p>',
    '<p>see <a href="https://a.com">page</a> now</p>',
    '<div><p><a href="https://a.com"> <span class="highlight_text_inserted">see page</span> <span class="highlight_text_deleted">see site</span> </a> now</p></div>',
  ],
  [
    '<p>see <a href="https://a.com">site</a> now</p>',
    '<p>see site now</p>',
    '<div><p>see site <span class="highlight_text_deleted"> Link: https://a.com</span> now</p></div>',
  ],
  [
    '<p>hello world</p>',
    '<p>hello <a href="https://x.org/">https://x.org/</a> world</p>',
    '<div><p><span class="highlight_text_inserted">hello <a href="https://x.org/">https://x.org/ Link: https://x.org/ </a> world</span></p> <p><span class="highlight_text_deleted">hello world</span></p></div>',
  ],
  [
    '<p>a <a href="https://a.com">x</a> b c d e f</p>',
    '<p>a <a href="https://a.com">x</a> b c d e g</p>',
    '<div><p>a <a href="https://a.com">x</a> b c d e <span class="highlight_text_inserted">g</span> <span class="highlight_text_deleted">f</span> </p></div>',
  ],
];

describe('highlightHtmlDifferences', () => {
  it.each(CASES)('%s → %s', (before, after, want) => {
    expect(highlightHtmlDifferences(before, after)).toBe(want);
  });

  it('matching blocks as difflib.SequenceMatcher finds them', () => {
    // SequenceMatcher(None, 'abxcd', 'abcd').get_matching_blocks()
    expect(matchingBlocks([...'abxcd'], [...'abcd'])).toEqual([
      [0, 0, 2],
      [3, 2, 2],
      [5, 4, 0],
    ]);
    expect(matchingBlocks([], [])).toEqual([[0, 0, 0]]);
  });
});
