// What "reads at 390 px" means for a table or a report, checked in the page: nothing inside scrolls
// sideways (the page or any element within), and no word is split across two lines (a word: a run of
// letters, digits and underscores; a line may still break at a space, a slash or a dot).
import type { Locator } from '@playwright/test';
import { expect } from './fixtures.js';

/** Elements within `where` that scroll sideways, and words within it split over lines. */
export async function phoneProblems(where: Locator): Promise<{ scrolls: string[]; broken: string[] }> {
  return where.evaluateAll((roots) => {
    const scrolls: string[] = [];
    const broken = new Set<string>();
    const name = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? `.${el.className.trim().replace(/\s+/g, '.')}` : ''}`;
    // Visually hidden (for screen readers alone): a 1 px box, not read on the screen.
    const hidden = (el: Element | null): boolean => {
      for (let at = el; at; at = at.parentElement) {
        const box = at.getBoundingClientRect();
        if (box.width <= 1 && box.height <= 1) return true;
      }
      return false;
    };
    const page = document.documentElement;
    if (page.scrollWidth > page.clientWidth)
      scrolls.push(`the page (${page.scrollWidth} > ${page.clientWidth})`);
    for (const root of roots) {
      for (const el of [root, ...root.querySelectorAll('*')]) {
        if (hidden(el)) continue;
        if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible') {
          scrolls.push(`${name(el)} (${el.scrollWidth} > ${el.clientWidth})`);
        }
      }
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (hidden(node.parentElement)) continue;
        const text = node.textContent ?? '';
        for (const match of text.matchAll(/[\p{L}\p{N}_]+/gu)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const tops = new Set(
            [...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)),
          );
          if (tops.size > 1) broken.add(match[0]);
        }
      }
    }
    return { scrolls, broken: [...broken] };
  });
}

/** Fails with what scrolls and what is split, if anything does. */
export async function expectReadsOnPhone(where: Locator, what: string): Promise<void> {
  const { scrolls, broken } = await phoneProblems(where);
  expect(scrolls, `${what}: scrolls sideways`).toEqual([]);
  expect(broken, `${what}: words split over two lines`).toEqual([]);
}
