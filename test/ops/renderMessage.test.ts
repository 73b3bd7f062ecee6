import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderMessage } from '../../src/ops/messages/renderMessage';
import { sendMessage } from '../../src/ops/messages/sendMessage';
import { getMessage } from '../../src/ops/messages/getMessage';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { expectRead, expectRefused } from '../support/read-ops';
import { as, devRealm, testCtx, wire } from '../support/realm';

const OP = 'render-message';
const state = devRealm();

describe('renderMessage', () => {
  it('renders Markdown without sending (test_markdown.py: test_message_render)', () => {
    expect(
      expectRead(
        OP,
        wire(state, 'hamlet', 'POST', '/messages/render', { content: 'This is **awesome**' }),
        state,
      ),
    ).toEqual({
      result: 'success',
      msg: '',
      rendered: '<p>This is <strong>awesome</strong></p>',
    });
    expect(renderMessage(state, as('hamlet'), { content: '<b>' }).body).toMatchObject({
      rendered: '<p>&lt;b&gt;</p>',
    });
  });

  it('renders as GET /message shows the message once sent', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('*a* `b`', '[x](https://example.com)', 'one\ntwo', '~~gone~~ <i>'),
        (content) => {
          const sent = sendMessage(
            state,
            as('hamlet'),
            { type: 'stream', to: 1, topic: 't', content },
            testCtx(),
          );
          const id = (sent.body as unknown as { id: number }).id;
          const got = getMessage(sent.state, as('hamlet'), { message_id: id }, testCtx()).body as unknown as {
            message: { content: string };
          };
          expect(renderMessage(state, as('hamlet'), { content }).body).toMatchObject({
            rendered: got.message.content,
          });
        },
      ),
      { numRuns: 8 },
    );
  });

  it('requires content', () => {
    expectRefused(
      OP,
      wire(state, 'hamlet', 'POST', '/messages/render'),
      state,
      "Missing 'content' argument",
      'REQUEST_VARIABLE_MISSING',
    );
  });

  it('is total and pure on failure', () => {
    checkLibraryLaws(renderMessage, state, arbParams(['content'], [fc.string()]), 60);
    checkWireLaws(renderMessage, state, arbWireParams(['content']), 40);
  });
});
