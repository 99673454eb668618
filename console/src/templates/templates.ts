// The rules people start from, written once as data: each is a body POST /v1/rules takes as it is,
// filled into the editor for the person to adjust (the host, the token, the body) and save.
// Plain data with no browser code, so the service's tests create and trace each one
// (test/api/templates.test.ts) and drive the CORS one through the proxy in Chromium.
import type { Schemas } from '../../../src/client/index.js';

export interface Template {
  /** Stable: it names the template in the console's address (`#/rules/new/<id>`). */
  id: string;
  title: string;
  /** What it does, in a sentence, and what to change before saving. */
  summary: string;
  rule: Schemas['RuleCreate'];
}

/** `localhost` or `127.0.0.1` on any port: where a local app and its API run. */
const LOCAL_HOST = '/^(localhost|127\\.0\\.0\\.1)(:[0-9]+)?$/';

export const TEMPLATES: readonly Template[] = [
  {
    id: 'cors-local',
    title: 'Allow cross-origin calls to a local API',
    summary:
      'Answers every request to localhost with CORS headers that allow the calling page, credentials included, so a front end on one port can call an API on another.',
    rule: {
      name: 'Allow cross-origin calls to a local API',
      description:
        'Access-Control-Allow-Origin is the calling page’s origin (rq_request_initiator_origin()), so cookies work too. Narrow the source to your API’s host.',
      ruleType: 'Headers',
      status: 'Active',
      pairs: [
        {
          source: { key: 'host', operator: 'Matches', value: LOCAL_HOST },
          modifications: [
            {
              Request: [],
              Response: [
                {
                  header: 'Access-Control-Allow-Origin',
                  type: 'Add',
                  value: 'rq_request_initiator_origin()',
                },
                { header: 'Access-Control-Allow-Methods', type: 'Add', value: '*' },
                { header: 'Access-Control-Allow-Headers', type: 'Add', value: '*' },
                { header: 'Access-Control-Allow-Credentials', type: 'Add', value: 'true' },
              ],
            },
          ],
        },
      ],
    },
  },
  {
    id: 'remove-csp',
    title: 'Remove the Content Security Policy',
    summary:
      'Removes the Content-Security-Policy headers of a site’s responses, so injected scripts and local assets are allowed while you debug.',
    rule: {
      name: 'Remove the Content Security Policy',
      description: 'Change app.example.com to the site you debug. Never leave this on for sites you browse.',
      ruleType: 'Headers',
      status: 'Active',
      pairs: [
        {
          source: { key: 'host', operator: 'Equals', value: 'app.example.com' },
          modifications: [
            {
              Request: [],
              Response: [
                { header: 'Content-Security-Policy', type: 'Remove' },
                { header: 'Content-Security-Policy-Report-Only', type: 'Remove' },
              ],
            },
          ],
        },
      ],
    },
  },
  {
    id: 'mock-api',
    title: 'Mock an API response',
    summary: 'Answers an API call with a JSON body of your own, without sending the request to the server.',
    rule: {
      name: 'Mock an API response',
      description: 'Change the URL and the body to the call you want to fake.',
      ruleType: 'Response',
      status: 'Active',
      pairs: [
        {
          source: { key: 'Url', operator: 'Contains', value: 'api.example.com/v1/user' },
          type: 'static',
          value: '{\n  "id": 1,\n  "name": "Ada Lovelace",\n  "plan": "pro"\n}',
          statusCode: 200,
          serveWithoutRequest: true,
        },
      ],
    },
  },
  {
    id: 'simulate-404',
    title: 'Simulate a 404',
    summary: 'Answers a URL with 404 Not Found, to see how the page copes with something missing.',
    rule: {
      name: 'Simulate a 404',
      description: 'Change the URL to the resource that should go missing.',
      ruleType: 'Response',
      status: 'Active',
      pairs: [
        {
          source: { key: 'Url', operator: 'Contains', value: 'api.example.com/v1/orders' },
          type: 'static',
          value: '{"error": "Not found"}',
          statusCode: 404,
          statusText: 'Not Found',
          serveWithoutRequest: true,
        },
      ],
    },
  },
  {
    id: 'slow-api',
    title: 'Simulate a slow API',
    summary:
      'Holds every request to an API host for three seconds before sending it, to test spinners and timeouts.',
    rule: {
      name: 'Simulate a slow API',
      description: 'Change the host and the delay (milliseconds).',
      ruleType: 'Delay',
      status: 'Active',
      pairs: [{ source: { key: 'host', operator: 'Equals', value: 'api.example.com' }, delay: 3000 }],
    },
  },
  {
    id: 'scripts-to-localhost',
    title: 'Load production scripts from localhost',
    summary:
      'Redirects a site’s JavaScript files to the same paths on your development server, to try local code on the live site.',
    rule: {
      name: 'Load production scripts from localhost',
      description:
        'The * in the source is $1 in the destination. Change the CDN and the port of your dev server.',
      ruleType: 'Redirect',
      status: 'Active',
      pairs: [
        {
          source: {
            key: 'Url',
            operator: 'Wildcard_Matches',
            value: 'https://cdn.example.com/*.js',
            filters: [{ resourceType: ['script'] }],
          },
          destinationType: 'url',
          destination: 'http://localhost:8080/$1.js',
        },
      ],
    },
  },
  {
    id: 'strip-tracking',
    title: 'Strip tracking parameters',
    summary: 'Removes utm_*, fbclid and gclid from the addresses of every site.',
    rule: {
      name: 'Strip tracking parameters',
      description: 'Add a Remove row for any other parameter you want gone.',
      ruleType: 'QueryParam',
      status: 'Active',
      pairs: [
        {
          source: { key: 'Url', operator: 'Matches', value: '/[?&](utm_[a-z]+|fbclid|gclid)=/' },
          modifications: [
            { param: 'utm_source', type: 'Remove' },
            { param: 'utm_medium', type: 'Remove' },
            { param: 'utm_campaign', type: 'Remove' },
            { param: 'utm_term', type: 'Remove' },
            { param: 'utm_content', type: 'Remove' },
            { param: 'fbclid', type: 'Remove' },
            { param: 'gclid', type: 'Remove' },
          ],
        },
      ],
    },
  },
  {
    id: 'auth-localhost',
    title: 'Add an auth header to localhost',
    summary: 'Sends an Authorization header with every request to localhost, so a local API lets you in.',
    rule: {
      name: 'Add an auth header to localhost',
      description: 'Put your token in place of YOUR_TOKEN.',
      ruleType: 'Headers',
      status: 'Active',
      pairs: [
        {
          source: { key: 'host', operator: 'Matches', value: LOCAL_HOST },
          modifications: [
            { Request: [{ header: 'Authorization', type: 'Add', value: 'Bearer YOUR_TOKEN' }], Response: [] },
          ],
        },
      ],
    },
  },
  {
    id: 'mobile-user-agent',
    title: 'Browse as a phone',
    summary: 'Sends an iPhone’s Safari user agent to a site, so it serves its mobile version.',
    rule: {
      name: 'Browse as a phone',
      description: 'Change example.com to the site.',
      ruleType: 'UserAgent',
      status: 'Active',
      pairs: [
        {
          source: { key: 'host', operator: 'Contains', value: 'example.com' },
          userAgent:
            'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
        },
      ],
    },
  },
  {
    id: 'inject-script',
    title: 'Inject a script',
    summary: 'Runs a script of yours on a site’s pages once they have loaded.',
    rule: {
      name: 'Inject a script',
      description: 'Change the host and the code.',
      ruleType: 'Script',
      status: 'Active',
      pairs: [
        {
          source: { key: 'host', operator: 'Equals', value: 'app.example.com' },
          scripts: [
            {
              type: 'code',
              codeType: 'js',
              loadTime: 'afterPageLoad',
              value: "console.log('Injected by Rulekeeper on', location.href);",
            },
          ],
        },
      ],
    },
  },
  {
    id: 'block-tracker',
    title: 'Block a tracker',
    summary: 'Cancels every request to Google Analytics and DoubleClick, and their subdomains.',
    rule: {
      name: 'Block a tracker',
      description: 'Add other hosts to the pattern, separated by |.',
      ruleType: 'Cancel',
      status: 'Active',
      pairs: [
        {
          source: {
            key: 'host',
            operator: 'Matches',
            value: '/(^|\\.)(google-analytics\\.com|doubleclick\\.net)$/',
          },
        },
      ],
    },
  },
  {
    id: 'api-to-staging',
    title: 'Send API calls to staging',
    summary: 'Rewrites the production API host to the staging one in every request, keeping path and query.',
    rule: {
      name: 'Send API calls to staging',
      description: 'Change both hosts.',
      ruleType: 'Replace',
      status: 'Active',
      pairs: [
        {
          source: { key: 'host', operator: 'Equals', value: 'api.example.com' },
          from: 'api.example.com',
          to: 'api.staging.example.com',
        },
      ],
    },
  },
];

export function templateById(id: string): Template | undefined {
  return TEMPLATES.find((template) => template.id === id);
}
