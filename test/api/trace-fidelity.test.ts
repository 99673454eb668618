// The fidelity points through POST /v1/trace: the shared table of cases as unsaved rules (each
// validated as POST /v1/rules would), refusals with pointers into the body, older formats converted
// as an import converts them, and URLs with Latin-1 and other IDN hosts once the code is hot.
import { describe, expect, it } from 'vitest';
import { parseUrl, toEngineRequest } from '../../src/engine/request.js';
import { expectCase, FIDELITY_CASES, REFUSAL_CASES } from '../helpers/fidelity-cases.js';
import { expectError } from '../helpers/fixtures.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

const IDN_URLS = [
  'https://münchen.de/',
  'https://bücher.example/straße?q=ä',
  'https://Ünïcödé.example:8443/x',
  'https://日本語.jp/パス',
  'https://пример.рф/',
  'https://xn--mnchen-3ya.de/',
];

forEachDatabase((db) => {
  describe('POST /v1/trace: fidelity to the rules people have', () => {
    const t = useTestApp({ db });
    const trace = (body: unknown) => t.call('POST', '/v1/trace', { body });

    it.each(FIDELITY_CASES.map((c) => [c.title, c] as const))('%s', async (_title, c) => {
      const reply = await trace({ request: c.request, rules: c.rules });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expectCase(c, reply.body.data);
    });

    it.each(REFUSAL_CASES.map((c) => [c.title, c] as const))('refuses %s', async (_title, c) => {
      const reply = await trace({ request: { url: 'https://x.com/' }, rules: [c.rule] });
      expectError(reply, 'RULE_PAIRS_INVALID', [
        { path: `/rules/0${c.path}`, message: expect.stringMatching(c.message) },
      ]);
    });

    it('converts an older Headers format as an import does, and says so', async () => {
      const older = {
        name: 'old headers',
        ruleType: 'Headers',
        status: 'Active',
        pairs: [
          {
            source: { key: 'Url', operator: 'Contains', value: 'x.com' },
            header: 'X-Old',
            target: 'Request',
            type: 'Add',
            value: '1',
          },
        ],
      };
      const reply = await trace({ request: { url: 'https://x.com/' }, rules: [older] });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body.data.outcome.requestHeaders).toEqual({ 'x-old': '1' });
      expect(reply.body.data.warnings).toEqual([
        { path: '/rules/0', message: expect.stringMatching(/older Headers format/) },
      ]);
    });

    it('converts an older Redirect format (source.values), and page domains with a dot, with warnings', async () => {
      const older = {
        name: 'old redirect',
        ruleType: 'Redirect',
        status: 'Active',
        source: { key: 'Url', operator: 'Contains', values: ['x.com/a', 'x.com/b'] },
        destination: 'https://y.com/',
      };
      const cancel = {
        name: 'dotted',
        ruleType: 'Cancel',
        status: 'Active',
        pairs: [
          {
            source: {
              key: 'Url',
              operator: 'Contains',
              value: 'z',
              filters: [{ pageDomains: ['.Example.com'] }],
            },
          },
        ],
      };
      const reply = await trace({ request: { url: 'https://x.com/b' }, rules: [older, cancel] });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body.data.outcome).toMatchObject({ url: 'https://y.com/', redirected: true });
      expect(reply.body.data.warnings).toEqual([
        {
          path: '/rules/0',
          message: expect.stringMatching(/older Redirect format: source.values became 2 pairs/),
        },
        { path: '/rules/1', message: expect.stringMatching(/"example.com" \(written ".Example.com"\)/) },
      ]);
    });

    it('answers no warnings when nothing was converted', async () => {
      const reply = await trace({ request: { url: 'https://x.com/' }, rules: [FIDELITY_CASES[0]?.rules[0]] });
      expect(reply.status).toBe(200);
      expect(reply.body.data).not.toHaveProperty('warnings');
    });

    it('takes Latin-1 and other IDN hosts after the URL code is hot', async () => {
      // Node 20's URL.canParse turns false for Latin-1 hosts once optimised; new URL does not.
      for (let i = 0; i < 20_000; i++) {
        const url = IDN_URLS[i % IDN_URLS.length] as string;
        expect(parseUrl(url)).toBeDefined();
        if (i % 7 === 0) expect('details' in toEngineRequest({ url, pageUrl: url })).toBe(false);
      }
      for (const url of IDN_URLS) {
        const reply = await trace({ request: { url, pageUrl: url }, rules: [FIDELITY_CASES[0]?.rules[0]] });
        expect(reply.status, `${url}: ${JSON.stringify(reply.body)}`).toBe(200);
        expect(reply.body.data.request.url).toBe(new URL(url).href);
      }
    });
  });
});
