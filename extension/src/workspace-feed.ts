// The worker's exact copy of the workspace's rules: rulekeeper/runtime (the codebase's one follower of
// the change stream: the lists, then the stream resumed after the last revision, `reset` and `bulk`,
// backoff while the server is away, a refused key ends it), compiled by the engine. The rest of the
// extension sees `WorkspaceFeed` only.
import type { Outcome, RequestInput } from '../../src/engine/index.js';
import { toEngineRequest } from '../../src/engine/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import type { Settings } from './settings.js';

/** Connected: following, with the environment whose values the rules act with (when the server has them). */
export type FeedState = { connected: true; environment?: string } | { connected: false; problem: string };

export interface WorkspaceFeed {
  /** What the rules do to a request, once the first copy was tried; undefined for a URL the engine cannot read. */
  evaluate(request: RequestInput): Promise<{ outcome: Outcome; acted: string[] } | undefined>;
  /** A rule's name and type, from the copy. */
  describe(ruleId: string): { name: string; ruleType: string } | undefined;
  /** Called after every change of the copy (each revision applied, and every full read). */
  onChange(listener: () => void): void;
  /** Called when the stream is followed again, or an attempt failed or the key was refused (with why). */
  onState(listener: (state: FeedState) => void): void;
  stop(): void;
}

export function followWorkspace(settings: Settings): WorkspaceFeed {
  // The worker counts what Chrome and its content scripts did itself (hits.ts), as `extension`.
  const runtime = createRuntime({
    server: settings.serverUrl,
    key: settings.key,
    ...(settings.environment ? { environment: settings.environment } : {}),
    maxRetryMs: 5_000,
    reportHits: false,
  });
  // Settles on the first answer, whatever it was: a page load waits for the rules once, never forever.
  const firstAttempt = new Promise<void>((resolve) => {
    runtime.ready.then(resolve, resolve);
    runtime.on('status', ({ state, problem }) => {
      if (state !== 'connecting' || problem !== undefined) resolve();
    });
  });

  return {
    async evaluate(input) {
      await firstAttempt;
      const request = toEngineRequest(input);
      if ('details' in request) return undefined;
      return runtime.ruleSet().evaluate(request);
    },
    describe(ruleId) {
      const found = runtime.rules().find((rule) => rule.id === ruleId);
      return found && { name: found.name, ruleType: found.ruleType };
    },
    onChange: (listener) => {
      runtime.on('change', () => listener());
    },
    onState: (listener) => {
      // The messages carry the server's words and the URL, never the key.
      runtime.on('status', ({ state, problem, environment }) => {
        if (state === 'live') listener({ connected: true, ...(environment ? { environment } : {}) });
        else if (problem !== undefined) listener({ connected: false, problem });
      });
    },
    stop: () => runtime.close(),
  };
}
