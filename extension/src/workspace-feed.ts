// The worker's exact copy of the workspace's rules, and the one place that knows how it is kept.
//
// SEAM: until `rulekeeper/runtime` lands, this follows the workspace with the proxy's rule feed
// (src/proxy/rule-feed.ts: the lists, then the change stream through src/client's typed client and
// SSE reader, with resume and backoff), compiled by the engine. Swapping to the runtime changes this
// file only: the rest of the extension sees `WorkspaceFeed`.

import type { Outcome, RequestInput } from '../../src/engine/index.js';
import { toEngineRequest } from '../../src/engine/index.js';
import { createRuleFeed } from '../../src/proxy/rule-feed.js';
import type { Settings } from './settings.js';

export type FeedState = { connected: true } | { connected: false; problem: string };

export interface WorkspaceFeed {
  /** What the rules do to a request, once the first load was tried; undefined for a URL the engine cannot read. */
  evaluate(request: RequestInput): Promise<{ outcome: Outcome; acted: string[] } | undefined>;
  /** A rule's name and type, from the copy. */
  describe(ruleId: string): { name: string; ruleType: string } | undefined;
  /** Called after every change of the copy (each revision applied, and every full read). */
  onChange(listener: () => void): void;
  /** Called when the server answers again after being away, or stops answering (with why). */
  onState(listener: (state: FeedState) => void): void;
  stop(): void;
}

export function followWorkspace(settings: Settings): WorkspaceFeed {
  const changeListeners: (() => void)[] = [];
  const stateListeners: ((state: FeedState) => void)[] = [];
  const feed = createRuleFeed({
    server: settings.serverUrl,
    key: settings.key,
    // The feed's log lines carry the server URL and what went wrong, never the key.
    log: (message) => {
      const connected = message.startsWith('following') || message.startsWith('connected');
      const state: FeedState = connected ? { connected } : { connected, problem: message };
      for (const listener of stateListeners) listener(state);
    },
    maxRetryMs: 5_000,
  });
  let stopped = false;

  // Each revision the feed reaches (and each full read after a reconnection) is a change.
  void (async () => {
    await feed.firstAttempt;
    let seen = feed.status().revision;
    if (seen >= 0) for (const listener of changeListeners) listener();
    while (!stopped) {
      await feed.reached(seen + 1);
      if (stopped) return;
      seen = feed.status().revision;
      for (const listener of changeListeners) listener();
    }
  })();

  return {
    async evaluate(input) {
      await feed.firstAttempt;
      const request = toEngineRequest(input);
      if ('details' in request) return undefined;
      return feed.current().evaluate(request);
    },
    describe(ruleId) {
      const found = feed.current().rules.find((compiled) => compiled.rule.id === ruleId);
      return found && { name: found.rule.name, ruleType: found.rule.ruleType };
    },
    onChange: (listener) => changeListeners.push(listener),
    onState: (listener) => stateListeners.push(listener),
    stop() {
      stopped = true;
      feed.stop();
    },
  };
}
