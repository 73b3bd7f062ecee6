import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  CLIENT_MASK,
  CLIENT_SHIFT,
  KNOWN_CLIENTS,
  OTHER_CLIENT,
  clientBits,
  clientFromUserAgent,
  clientName,
  defaultReadBySender,
} from '../../src/core/messages/client-names';
import { MESSAGE_BITS } from '../../src/core/messages/flags';

describe('clientFromUserAgent (Zulip parse_client without a client parameter)', () => {
  it('names the real clients by their User-Agent', () => {
    expect(clientFromUserAgent('ZulipPython/0.8.2 (Linux; Debian GNU/Linux 12)')).toBe('ZulipPython');
    expect(clientFromUserAgent('ZulipTerminal/0.7.0 Linux (Linux; Debian 12)')).toBe('ZulipTerminal');
    expect(clientFromUserAgent('ZulipFlutter/30.0.262 (Android 14)')).toBe('ZulipFlutter');
    expect(clientFromUserAgent('ZulipMobile/27.2 (iOS 17.1)')).toBe('ZulipMobile');
    expect(clientFromUserAgent('node-fetch/1.0 (+https://github.com/bitinn/node-fetch)')).toBe('node-fetch');
    expect(clientFromUserAgent('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36')).toBe('Mozilla');
    expect(clientFromUserAgent('curl/8.1.2')).toBe('curl');
    // The name runs on past a space (up to a digit, "/" or "("), as Zulip's regex does.
    expect(clientFromUserAgent('Zulip Desktop app 5.9')).toBe('Zulip Desktop app');
  });

  it('says "Unspecified" without a User-Agent, and cuts a name to 30 characters', () => {
    expect(clientFromUserAgent(undefined)).toBe('Unspecified');
    expect(clientFromUserAgent('')).toBe('');
    expect(clientFromUserAgent(`${'x'.repeat(40)}/1.0`)).toBe('x'.repeat(30));
  });

  it('gives a name of at most 30 characters for any header', () => {
    fc.assert(fc.property(fc.string(), (ua) => clientFromUserAgent(ua).length <= 30));
  });
});

describe('defaultReadBySender (Client.default_read_by_sender)', () => {
  it('is true for the full-UI clients only, case-insensitively', () => {
    for (const name of [
      'ZulipTerminal',
      'ZulipMobile',
      'website',
      'ZulipAndroid',
      'ZulipiOS',
      'snipe',
      'ios',
    ])
      expect(defaultReadBySender(name)).toBe(true);
    for (const name of ['API', 'ZulipPython', 'ZulipFlutter', 'Unspecified', 'Mozilla', 'test suite', ''])
      expect(defaultReadBySender(name)).toBe(false);
  });
});

describe('client bits', () => {
  it('stay clear of the message bits, and name back what they were given', () => {
    for (const bit of Object.values(MESSAGE_BITS)) expect(bit & CLIENT_MASK).toBe(0);
    KNOWN_CLIENTS.forEach((name, i) => {
      expect(clientBits(name)).toBe(i << CLIENT_SHIFT);
      expect(clientName(clientBits(name) | MESSAGE_BITS.has_link, 7, new Map())).toBe(name);
    });
    expect(clientBits('My integration')).toBe(OTHER_CLIENT << CLIENT_SHIFT);
    expect(clientName(OTHER_CLIENT << CLIENT_SHIFT, 7, new Map([[7, 'My integration']]))).toBe(
      'My integration',
    );
    // Bits without a client (every message stored before clients were) read as "API".
    expect(clientName(MESSAGE_BITS.has_reaction, 7, new Map())).toBe('API');
  });
});

describe('names cut as Zulip cuts them', () => {
  it('counts code points, as Python does, not UTF-16 units', () => {
    const astral = '😀'.repeat(20); // 20 code points, 40 UTF-16 units
    expect(clientFromUserAgent(astral)).toBe(astral);
    expect(clientFromUserAgent('😀'.repeat(31))).toBe('😀'.repeat(30));
  });
});
