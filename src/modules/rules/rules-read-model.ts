// Rules as they are read, kept in memory beside the store until their data changes (read-cache.ts says
// how that is known): the rules service consults it for single rules and pages instead of the store.

import type { Page } from '../../http/replies.js';
import { createReadCache } from '../shared/read-cache.js';
import type { RuleFilter, RuleJson, RulesStore } from './rules-store.js';

/** A page of rules, each as the JSON text of its API representation (built by the database). */
export type RulePage = Page<string>;

export function createRulesReadModel(rulesStore: RulesStore) {
  // A kept page is also sent as UTF-8 bytes, built once per page by the reply layer (replies.ts) and
  // dropped with it: its text and its bytes are counted.
  const pages = createReadCache<RulePage>(16 * 1024 * 1024, (page) => 3 * textLength(page.items));
  const singles = createReadCache<RuleJson>(8 * 1024 * 1024, (rule) => 2 * rule.json.length);

  return {
    /**
     * The rule with that id in any workspace: one of `workspaceId` kept while `version` (a version of
     * its data, read before) holds; another workspace's read each time (it is answered 403, and the
     * caller's version says nothing of that workspace).
     */
    rule(
      workspaceId: string,
      id: string,
      owner: string,
      version: number | undefined,
    ): RuleJson | Promise<RuleJson | undefined> {
      // No promise of its own: this is the hottest read, and a kept rule is answered at once.
      return singles.read(
        `${workspaceId} ${id}`,
        version,
        () => rulesStore.findJson(id, owner),
        (rule) => rule?.workspace_id === workspaceId,
      );
    },

    /** A page of the rules `filter` selects, with their total; kept while `version` holds. */
    async page(
      filter: RuleFilter,
      owner: string,
      offset: number,
      limit: number,
      version: number | undefined,
    ): Promise<RulePage> {
      const key = JSON.stringify([filter, owner, offset, limit]);
      const page = await pages.read(key, version, async () => {
        const [items, total] = await Promise.all([
          rulesStore.listJson(filter, owner, offset, limit),
          rulesStore.count(filter),
        ]);
        return { items, total, offset };
      });
      return page as RulePage; // a built page is never undefined
    },
  };
}

export type RulesReadModel = ReturnType<typeof createRulesReadModel>;

function textLength(items: readonly string[]): number {
  let length = 0;
  for (const item of items) length += item.length;
  return length;
}
