// The worker's state in words, shared by the popup and the options page.
import type { Status } from './settings.js';

export function describeState(status: Status): string {
  const who = status.identity
    ? `workspace ${status.identity.workspace} as ${status.identity.user} (${status.identity.scope} key)`
    : '';
  switch (status.state) {
    case 'signed_out':
      return 'Not signed in.';
    case 'connecting':
      return 'Connecting…';
    case 'following': {
      const installed = status.installed === undefined ? '' : `; ${status.installed} browser rules installed`;
      const environment = status.environment === undefined ? '' : ` in environment ${status.environment}`;
      return `Following ${who}${environment}${installed}.`;
    }
    case 'unreachable':
      return 'The server cannot be reached; the last rules stay in force.';
    case 'refused':
      return 'The server refused the key; no rules are applied.';
  }
}

/** The error to show, or '' when all is well. */
export function describeError(status: Status): string {
  if (status.state === 'refused' || status.state === 'unreachable') return status.error ?? '';
  return status.installError ?? '';
}
