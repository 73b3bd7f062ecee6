import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createRealm, handleApiRequest, basicAuthHeader } from '../../src/index';
import { seededRandom } from '../../src/core/context';

/**
 * The core runs anywhere JavaScript runs: bundle it for the browser, prove the bundle imports
 * nothing from Node, and run an operation in headless Chromium (Debian's, driven by playwright-core).
 */
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
/** CHAT_REALM_DIST=1 (CI, after the build): bundle the built package, not the sources. */
const FROM_DIST = process.env['CHAT_REALM_DIST'] === '1';
const ENTRY = new URL(FROM_DIST ? '../../dist/index.js' : '../../src/index.ts', import.meta.url).pathname;
/** In CI a missing browser fails the run; locally the browser step is skipped without one. */
const REQUIRE_BROWSER = process.env['CI'] === 'true' || FROM_DIST;
const fixture = readFileSync(new URL('../fixtures/dev-realm.json', import.meta.url), 'utf8');

async function bundleCore() {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: 'iife',
    globalName: 'ChatRealm',
    platform: 'browser',
    write: false,
    metafile: true,
    minify: true,
  });
  return { code: result.outputFiles[0]!.text, metafile: result.metafile };
}

describe('the core in a browser', () => {
  it('bundles with no Node built-in anywhere in its import graph', async () => {
    const { metafile } = await bundleCore();
    const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
    const offenders: string[] = [];
    for (const [file, input] of Object.entries(metafile.inputs)) {
      for (const imp of input.imports)
        if (imp.path.startsWith('node:') || builtins.has(imp.path)) offenders.push(`${file} → ${imp.path}`);
    }
    expect(offenders).toEqual([]);
  });

  it('has a Chromium to run in (required in CI)', () => {
    if (REQUIRE_BROWSER) expect(existsSync(CHROMIUM), `no browser at ${CHROMIUM}`).toBe(true);
  });

  it.skipIf(!existsSync(CHROMIUM) && !REQUIRE_BROWSER)(
    'runs createRealm and an operation in headless Chromium, as in Node',
    async () => {
      const { code } = await bundleCore();
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      });
      try {
        const page = await browser.newPage();
        await page.setContent('<!doctype html><title>chat-realm</title>');
        await page.addScriptTag({ content: code });
        const request = {
          method: 'PATCH',
          url: '/api/v1/settings',
          headers: { authorization: basicAuthHeader('hamlet@zulip.com', 'hamletKKKKKKKKKKKKKKKKKKKKApiKey') },
          body: 'twenty_four_hour_time=true',
        };
        const inBrowser = await page.evaluate(
          ({ fixture, request }) => {
            type Lib = {
              createRealm: typeof createRealm;
              handleApiRequest: typeof handleApiRequest;
              seededRandom: typeof seededRandom;
            };
            const lib = (globalThis as unknown as { ChatRealm: Lib }).ChatRealm;
            const realm = lib.createRealm(JSON.parse(fixture), { random: lib.seededRandom(1) });
            const r = lib.handleApiRequest(realm, request, { now: 1795219200, random: lib.seededRandom(2) });
            return { status: r.status, body: r.body, events: r.events, ua: navigator.userAgent };
          },
          { fixture, request },
        );
        const realm = createRealm(JSON.parse(fixture), { random: seededRandom(1) });
        const inNode = handleApiRequest(realm, request, { now: 1795219200, random: seededRandom(2) });
        expect(inBrowser.ua).toMatch(/Chrome/);
        expect({ status: inBrowser.status, body: inBrowser.body, events: inBrowser.events }).toEqual(
          JSON.parse(JSON.stringify({ status: inNode.status, body: inNode.body, events: inNode.events })),
        );
      } finally {
        await browser.close();
      }
    },
  );
});
