// The proxy's copy of a workspace's rules: rulekeeper/runtime (the codebase's one follower of the
// change stream), with the proxy's log lines. While the server is away the last rules stay in force;
// a refused key (or an environment the workspace does not have) stops the following, and the proxy
// goes on with the rules it had.
import { checkResolvedPairs } from '../engine/variables-check.js';
import { createRuntime, type RuleSet } from '../runtime/index.js';

export interface RuleFeedOptions {
  server: string;
  key: string;
  /** The environment whose variables the rules act with (`--environment`); default the key's, else `default`. */
  environment?: string;
  log: (message: string) => void;
  /** Backoff after a failure: from `minRetryMs`, doubling to `maxRetryMs`. */
  minRetryMs?: number;
  maxRetryMs?: number;
}

export interface RuleFeed {
  /** The rule set in force now. */
  current(): RuleSet;
  /** How many rules are loaded, and the revision they are of (-1 before the first load). */
  status(): { rules: number; revision: number; connected: boolean };
  /** Settles after the first attempt to load the rules, whether it succeeded or not. */
  firstAttempt: Promise<void>;
  /** Settles when the feed has applied `revision` or a later one. */
  reached(revision: number): Promise<void>;
  stop(): void;
}

export function createRuleFeed(options: RuleFeedOptions): RuleFeed {
  const { server, log } = options;
  const runtime = createRuntime({
    server,
    key: options.key,
    // The proxy counts the rules it carries out itself (proxy-command.ts), as `proxy`.
    reportHits: false,
    // A rule its variables make invalid here does not act, as the server's trace says.
    pairsCheck: checkResolvedPairs,
    ...(options.environment === undefined ? {} : { environment: options.environment }),
    ...(options.minRetryMs === undefined ? {} : { minRetryMs: options.minRetryMs }),
    ...(options.maxRetryMs === undefined ? {} : { maxRetryMs: options.maxRetryMs }),
  });
  let markFirst = () => {};
  const firstAttempt = new Promise<void>((resolve) => {
    markFirst = resolve;
  });
  let followed = false;
  let lost = false;
  const kept = () => {
    const { revision, rules } = runtime.status();
    return revision < 0 ? 'no rules yet' : `keeping the ${rules} rules it had`;
  };

  runtime.on('status', ({ state, rules, problem, environment }) => {
    markFirst();
    const where = environment === undefined ? '' : ` (environment ${environment})`;
    if (state === 'live' && !followed) log(`following ${server}${where}: ${rules} rules`);
    else if (state === 'live' && lost) log(`connected to ${server} again: ${rules} rules`);
    else if (state !== 'live' && state !== 'stopped' && !lost)
      log(`cannot reach ${server} (${problem}): ${kept()}; retrying`);
    if (state === 'live') followed = true;
    lost = state === 'connecting' || state === 'reconnecting';
  });
  runtime.on('error', (error) => {
    markFirst();
    log(`${error.message}; no longer following ${server}, ${kept()}`);
  });

  return {
    current: () => runtime.ruleSet(),
    status: () => {
      const { rules, revision, state } = runtime.status();
      return { rules, revision, connected: state === 'live' };
    },
    firstAttempt,
    // As before the runtime: once the feed stopped, a revision not reached is waited for forever.
    reached: (revision) => runtime.reached(revision).catch(() => new Promise<void>(() => {})),
    stop: () => runtime.close(),
  };
}
