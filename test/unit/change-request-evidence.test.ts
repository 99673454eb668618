// A change request's evidence as its job computes it (the job the evidence pool runs): the stored
// suites' cases run with the rules before and after, the cases that start failing or passing, and the
// traces of the requests whose outcome differs. Real engine, real lint, real compiler; no database.
import { describe, expect, it } from 'vitest';
import { encodePage } from '../../src/jobs/job-pages.js';
import { runEvidence } from '../../src/modules/change-requests/evidence-job.js';
import { createEvidence, MAX_EVIDENCE_CASES } from '../../src/modules/change-requests/evidence-service.js';

const redirect = (id: string, to: string) => ({
  id,
  name: id,
  ruleType: 'Redirect',
  status: 'Active',
  groupId: null,
  groupStatus: null,
  creationDate: 1,
  pairs: JSON.stringify([
    {
      id: 'p1',
      source: { key: 'Url', operator: 'Equals', value: 'https://api.example/v1' },
      destination: to,
    },
  ]),
});

const suite = {
  name: 'api',
  cases: [
    {
      name: 'api goes to staging',
      request: { url: 'https://api.example/v1' },
      expect: { url: 'https://staging.example/v1', redirected: true },
    },
    { name: 'others untouched', request: { url: 'https://other.example/' }, expect: { cancelled: false } },
  ],
};

describe('change request evidence', () => {
  it('says which cases start failing, and traces the request whose outcome differs', () => {
    const evidence = runEvidence({
      revision: 7,
      pages: [encodePage({ rules: [redirect('Redirect_a', 'https://staging.example/v1')] })],
      groups: [],
      effects: [
        {
          kind: 'rule',
          op: 'update',
          id: 'Redirect_a',
          patch: {
            pairs: JSON.stringify([
              {
                id: 'p1',
                source: { key: 'Url', operator: 'Equals', value: 'https://api.example/v1' },
                destination: 'https://prod.example/v1',
              },
            ]),
          },
        },
      ],
      suites: [suite],
    });
    expect(evidence.status).toBe('ready');
    expect(evidence.tests).toStrictEqual([
      {
        suite: 'api',
        before: { passed: 2, failed: 0 },
        after: { passed: 1, failed: 1 },
        changed: [{ case: 'api goes to staging', before: 'pass', after: 'fail' }],
      },
    ]);
    expect(evidence.outcomes).toHaveLength(1);
    expect(evidence.outcomes?.[0]).toMatchObject({
      suite: 'api',
      case: 'api goes to staging',
      before: {
        outcome: { url: 'https://staging.example/v1' },
        rules: [{ ruleId: 'Redirect_a', acted: true }],
      },
      after: {
        outcome: { url: 'https://prod.example/v1' },
        rules: [{ ruleId: 'Redirect_a', acted: true }],
      },
    });
  });

  it('a deleted group ungroups its rules, a new inactive group turns its new rules off', () => {
    const evidence = runEvidence({
      revision: 1,
      pages: [encodePage({ rules: [] })],
      groups: [],
      effects: [
        { kind: 'group', op: 'create', id: '$off', status: 'Inactive' },
        {
          kind: 'rule',
          op: 'create',
          id: 'new:1',
          rule: {
            name: 'cancel',
            ruleType: 'Cancel',
            status: 'Active',
            groupId: '$off',
            pairs: JSON.stringify([
              { id: 'p', source: { key: 'host', operator: 'Equals', value: 'other.example' } },
            ]),
          },
        },
      ],
      suites: [suite],
    });
    // In an inactive group the new Cancel does not act: the suite is unchanged, nothing compiled.
    expect(evidence.tests?.[0]?.changed).toStrictEqual([]);
    expect(evidence.outcomes).toStrictEqual([]);
    expect(evidence.browser).toStrictEqual([]);
  });
});

describe('change request evidence bounds', () => {
  it('is not computed past MAX_EVIDENCE_CASES suite cases: failed, saying why, nothing run', async () => {
    let ran = false;
    const evidence = createEvidence({
      store: { groups: async () => [] },
      listedRules: { rulesPage: async () => [] },
      changes: { revision: () => 3 },
      suites: async () => [
        {
          name: 'huge',
          cases: Array.from({ length: MAX_EVIDENCE_CASES + 1 }, (_, i) => ({
            name: `case ${i}`,
            request: { url: 'https://a.example/' },
            expect: {},
          })),
        },
      ],
      runner: {
        run: async () => {
          ran = true;
          throw new Error('not to be run');
        },
        close: async () => {},
      },
    });
    const principal = {
      via: 'key' as const,
      keyId: 'key_x',
      userId: 'usr_x',
      workspaceId: 'ws_x',
      ownerUserId: 'usr_x',
      role: 'editor' as const,
    };
    expect(await evidence(principal, [])).toStrictEqual({
      status: 'failed',
      revision: 3,
      reason: `the stored suites hold ${MAX_EVIDENCE_CASES + 1} cases; the evidence runs at most ${MAX_EVIDENCE_CASES}`,
    });
    expect(ran).toBe(false);
  });
});
