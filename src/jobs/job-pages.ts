// A workspace's rules as a worker job takes them: read a page at a time (the event loop answers others
// between two pages), each page encoded as UTF-8 JSON and moved to the worker, not copied. Parsing
// and copying 100,000 rules took seconds on the event loop; encoding a page takes a millisecond.
import { nextTurn } from './slices.js';

/** Where a page of rules ends: the next starts after it (list order is creation date, then id). */
export type RulesCursor = { creationDate: number; id: string };

/**
 * What reads a workspace's rules a page at a time (modules/shared/listed-rules-store.ts): given here
 * as an interface, so that the jobs floor reads no module's store.
 */
export interface RulePageSource {
  rulesPage(workspaceId: string, limit: number, after?: RulesCursor): Promise<RulesCursor[]>;
}

/**
 * Rules (or groups) read and encoded at a time: each page is one step of the event loop, and 1,000
 * rules took 10 to 20 ms to read and encode on a busy machine, longer than other requests should wait.
 */
export const PAGE_SIZE = 250;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const encodePage = (page: unknown): Uint8Array => encoder.encode(JSON.stringify(page));
export const decodePage = <T>(bytes: Uint8Array): T => JSON.parse(decoder.decode(bytes));

/** What to move to the worker with the pages. */
export const transferOf = (pages: Uint8Array[]): ArrayBuffer[] =>
  pages.map((page) => page.buffer as ArrayBuffer);

/** Every rule of the workspace in list order, as pages of `{rules: ListedRuleRow[]}`. */
export async function rulePages(store: RulePageSource, workspaceId: string): Promise<Uint8Array[]> {
  const pages: Uint8Array[] = [];
  let cursor: RulesCursor | undefined;
  for (;;) {
    const rules = await store.rulesPage(workspaceId, PAGE_SIZE, cursor);
    if (rules.length > 0) pages.push(encodePage({ rules }));
    if (rules.length < PAGE_SIZE) return pages;
    const last = rules[rules.length - 1] as RulesCursor;
    cursor = { creationDate: last.creationDate, id: last.id };
    await nextTurn();
  }
}
