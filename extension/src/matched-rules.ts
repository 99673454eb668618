// Chrome's rules that acted on each tab, for a packed install (from a store or an admin console), where
// Chrome gives no onRuleMatchedDebug events. getMatchedRules (declarativeNetRequestFeedback) answers,
// for every tab, which of the extension's rules matched and when, though not on which request; and
// Chrome allows 20 calls in 10 minutes outside a user gesture, failing the rest. So one call asks for
// every tab at once (the matches since the last call), and calls are spent from a budget: 4 at once,
// one more every 40 s (never more than 19 in any 10 minutes). Asked for when none is left, one call is
// made when the budget allows, however many asked meanwhile. The budget is kept in session storage, so
// a restarted worker does not spend it again. Asked for when a page's load completes and when the popup
// opens; the worker's 30 s wake follows up for a while after (a page's later requests), then stops.

/** A workspace rule's browser rule that matched on a tab, at `at` (milliseconds since the epoch). */
export interface TabMatch {
  tabId: number;
  browserRuleId: number;
  at: number;
}

const STATE = 'matchedRulesBudget';
const BURST = 4;
const REFILL_MS = 40_000;
/** Asked again from a little before the last call: a match twice is recorded once, a lost one never. */
const OVERLAP_MS = 1_000;
/** How long after a page load or the popup the wake still reads (a page's requests after its load). */
const FOLLOW_UP_MS = 120_000;

interface Budget {
  tokens: number;
  /** When `tokens` was last counted. */
  at: number;
  /** Matches from this time on are the next call's. */
  since: number;
  /** When a page load or the popup last asked. */
  asked: number;
}

async function loadBudget(now: number): Promise<Budget> {
  const stored = (await chrome.storage.session.get(STATE))[STATE] as Budget | undefined;
  const budget = stored ?? { tokens: BURST, at: now, since: 0, asked: 0 };
  const gained = Math.floor((now - budget.at) / REFILL_MS);
  if (gained <= 0) return budget;
  const tokens = Math.min(BURST, budget.tokens + gained);
  return { ...budget, tokens, at: tokens === BURST ? now : budget.at + gained * REFILL_MS };
}

const saveBudget = (budget: Budget) => chrome.storage.session.set({ [STATE]: budget });

/** Reads the matches when asked, within Chrome's quota; `onMatches` gets each call's, by tab. */
export function createMatchedRulesReader(onMatches: (matches: TabMatch[]) => Promise<void>) {
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

  async function readOnce(): Promise<void> {
    const now = Date.now();
    const budget = await loadBudget(now);
    if (budget.tokens < 1) {
      timer ??= setTimeout(
        () => {
          timer = undefined;
          void read();
        },
        budget.at + REFILL_MS - now,
      );
      await saveBudget(budget);
      return;
    }
    // Spent before the call: a worker stopped during it never spends it twice.
    await saveBudget({ ...budget, tokens: budget.tokens - 1, since: now - OVERLAP_MS });
    let details: chrome.declarativeNetRequest.RulesMatchedDetails;
    try {
      details = await chrome.declarativeNetRequest.getMatchedRules({ minTimeStamp: budget.since });
    } catch {
      // Over Chrome's quota after all (its count is its own): these matches are asked for next time.
      await saveBudget({ ...(await loadBudget(Date.now())), since: budget.since });
      return;
    }
    const matches = details.rulesMatchedInfo
      .filter(
        ({ tabId, rule }) => tabId >= 0 && rule.rulesetId === chrome.declarativeNetRequest.DYNAMIC_RULESET_ID,
      )
      .map(({ tabId, rule, timeStamp }) => ({ tabId, browserRuleId: rule.ruleId, at: timeStamp }));
    if (matches.length > 0) await onMatches(matches);
  }

  /** One call at a time: asked during one, one more follows it (one, however many asked). */
  function read(): Promise<void> {
    if (!running) {
      running = readOnce()
        .catch(() => {})
        .finally(() => {
          running = undefined;
        });
      return running;
    }
    queued ??= running.then(() => {
      queued = undefined;
      return read();
    });
    return queued;
  }

  return {
    /** A page loaded, or the popup opened: reads now if the budget allows, else when it does. */
    async ask(): Promise<void> {
      await saveBudget({ ...(await loadBudget(Date.now())), asked: Date.now() });
      if (!timer) await read();
    },
    /** The worker's wake: reads again for a while after the last ask, then leaves the budget alone. */
    async followUp(): Promise<void> {
      const budget = await loadBudget(Date.now());
      if (!timer && Date.now() - budget.asked < FOLLOW_UP_MS) await read();
    },
  };
}
