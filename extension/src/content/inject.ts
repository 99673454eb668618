// Script rules' scripts and styles as elements of the page, added from the page's own world so that
// they run as the page's scripts do (under the page's Content-Security-Policy, and only under it).
import type { ScriptEffect } from '../../../src/engine/types.js';

/** The element that carries one script or style, with its attributes. */
function elementFor(script: ScriptEffect): HTMLElement {
  const css = script.codeType === 'css';
  let element: HTMLElement;
  if (css && script.type === 'url') {
    const link = document.createElement('link');
    link.rel = 'stylesheet';
    link.href = script.value;
    element = link;
  } else if (css) {
    element = document.createElement('style');
    element.textContent = script.value;
  } else {
    const tag = document.createElement('script');
    if (script.type === 'url') {
      tag.src = script.value;
      // Scripts added by a script run as soon as they load; in order, as the rule lists them.
      tag.async = false;
    } else tag.textContent = script.value;
    element = tag;
  }
  for (const { name, value } of script.attributes ?? []) element.setAttribute(name, value);
  element.dataset.rulekeeperRule = script.ruleId;
  return element;
}

/** Before the page loads (as soon as the document exists), or once its HTML was parsed. */
export function inject(scripts: ScriptEffect[]): void {
  const insert = (script: ScriptEffect) => {
    const parent = document.head ?? document.documentElement;
    parent.appendChild(elementFor(script));
  };
  const early = scripts.filter((script) => script.loadTime !== 'afterPageLoad');
  const late = scripts.filter((script) => script.loadTime === 'afterPageLoad');
  early.forEach(insert);
  if (late.length === 0) return;
  if (document.readyState === 'loading')
    document.addEventListener('DOMContentLoaded', () => late.forEach(insert), { once: true });
  else late.forEach(insert);
}
