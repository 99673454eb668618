// The token of a single-use link (an invite, the setup link, a password reset): it travels in the
// address's fragment (`#/accept?token=…`), which the browser never sends to any server.
export type LinkPage = { page: 'accept' | 'reset'; token: string };

/** The link page the address opens, if it is one. */
export function linkPage(hash: string): LinkPage | null {
  const match = /^#\/(accept|reset)\?(.*)$/.exec(hash);
  if (!match) return null;
  const token = new URLSearchParams(match[2]).get('token');
  return token ? { page: match[1] as LinkPage['page'], token } : null;
}

/** Takes the token out of the address (and the tab's history) once it is used or given up. */
export function forgetLinkAddress(): void {
  history.replaceState(null, '', `${location.pathname}#/rules`);
}
