// Where the console is: the part of the address after `#`, so that reloading or sharing a link
// (never with the key in it) opens the same screen, and the service serves one page.
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { page: 'rules' }
  /** `template`: a new rule starts from that template (templates/templates.ts). */
  | { page: 'rule'; ruleId: string | null; template?: string }
  | { page: 'groups' }
  | { page: 'templates' }
  | { page: 'deleted' }
  | { page: 'try' }
  | { page: 'move' }
  | { page: 'members' }
  | { page: 'keys' }
  | { page: 'activity' }
  | { page: 'test-suites' }
  | { page: 'environments' }
  | { page: 'settings' }
  | { page: 'change-requests' }
  | { page: 'change-request'; id: string }
  /** The author edits operation `index` (0-based) of a change request in the rule editor. */
  | { page: 'change-request-operation'; id: string; index: number }
  | { page: 'webhooks' };

/** Pages whose address is their name alone. */
const PLAIN_PAGES = [
  'groups',
  'try',
  'move',
  'templates',
  'deleted',
  'members',
  'keys',
  'activity',
  'test-suites',
  'environments',
  'settings',
  'change-requests',
  'webhooks',
] as const;
type PlainPage = (typeof PLAIN_PAGES)[number];
const isPlainPage = (page: string | undefined): page is PlainPage =>
  (PLAIN_PAGES as readonly (string | undefined)[]).includes(page);

export function parseRoute(hash: string): Route {
  const [page, id, template, index] = hash.replace(/^#\/?/, '').split('/');
  if (page === 'change-requests' && id && template === 'operations' && /^[1-9][0-9]{0,3}$/.test(index ?? ''))
    return { page: 'change-request-operation', id: decodeURIComponent(id), index: Number(index) - 1 };
  if (page === 'change-requests' && id) return { page: 'change-request', id: decodeURIComponent(id) };
  if (page === 'rules' && id === 'new')
    return template
      ? { page: 'rule', ruleId: null, template: decodeURIComponent(template) }
      : { page: 'rule', ruleId: null };
  if (page === 'rules' && id) return { page: 'rule', ruleId: decodeURIComponent(id) };
  if (isPlainPage(page)) return { page };
  return { page: 'rules' };
}

export function hrefFor(route: Route): string {
  if (route.page === 'rule' && route.ruleId === null && route.template)
    return `#/rules/new/${encodeURIComponent(route.template)}`;
  if (route.page === 'rule')
    return `#/rules/${route.ruleId === null ? 'new' : encodeURIComponent(route.ruleId)}`;
  if (route.page === 'change-request') return `#/change-requests/${encodeURIComponent(route.id)}`;
  // Numbered from 1 in the address, as people count operations.
  if (route.page === 'change-request-operation')
    return `#/change-requests/${encodeURIComponent(route.id)}/operations/${route.index + 1}`;
  return `#/${route.page}`;
}

export function navigate(route: Route): void {
  location.hash = hrefFor(route);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', update);
    // The hash may have changed between the first render and now (an effect runs after the paint,
    // later still on a busy machine): that change's event came before anyone listened.
    update();
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}
