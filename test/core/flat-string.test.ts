import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { flatString } from '../../src/core/text/flat-string';
import { appendMessage } from '../../src/core/messages/store-append';
import { EMPTY_STORE } from '../../src/core/messages/store-types';
import { nameOf } from '../../src/core/messages/interner';

describe('flatString', () => {
  it('keeps every code unit of any string, lone surrogates and controls included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (s) => {
        expect(flatString(s)).toBe(s);
      }),
    );
    for (const s of ['\ud800 lone high surrogate', 'lone low \udfff at the end', 'quote " and \\ and \n'])
      expect(flatString(s)).toBe(s);
  });

  it('returns a short string as it is (engines never make those as views)', () => {
    expect(flatString('short')).toBe('short');
  });
});

describe('interned topic names', () => {
  it('are the same text as the request spelled, whatever the string was cut from', () => {
    const body = `type=stream&to=1&topic=${'A topic cut from a request body'}&content=x`;
    const topic = body.slice(body.indexOf('topic=') + 6, body.indexOf('&content'));
    const store = appendMessage(
      EMPTY_STORE,
      { id: 1, sender: 1, timestamp: 0, bits: 0, content: 'x', streamId: 1, topic, participants: [] },
      [[1, 0]],
    );
    expect(nameOf(store.topics, 1)).toBe('A topic cut from a request body');
    expect(store.topics.ids.get('A topic cut from a request body')).toBe(1);
    expect(store.foldedTopics.ids.get('a topic cut from a request body')).toBe(1);
  });
});
