// Follows the workspace through rulekeeper/runtime's follower (the codebase's one reader of the change
// stream) so that a change made elsewhere shows up. Only the follower, without a copy: the console
// evaluates nothing locally (the engine stays out of its bundle) and its panels read their own pages.
import { useEffect, useRef, useState } from 'preact/hooks';
import { followWorkspace, type RuntimeState } from '../../src/runtime/workspace-copy.js';
import type { Credentials } from './api.js';

export type LiveState = RuntimeState;

/**
 * Calls `onChange` for every change to the workspace after the console opened (a `bulk` or `reset`
 * included: the panels read again), and `onRefused` when the service no longer accepts the key, until
 * the component goes away.
 */
export function useLiveChanges(
  credentials: Credentials,
  onChange: () => void,
  onRefused: () => void,
): LiveState {
  const [state, setState] = useState<LiveState>('connecting');
  const latest = useRef({ onChange, onRefused });
  latest.current = { onChange, onRefused };

  useEffect(() => {
    // What changed only: each panel reads what it shows itself.
    const copy = followWorkspace({ server: location.origin, ...credentials, keepCopy: false });
    // The first change is the position the stream opened at: the panels have just read the same.
    let made = false;
    copy.on('change', () => {
      if (made) latest.current.onChange();
      made = true;
    });
    copy.on('status', (status) => setState(status.state));
    copy.on('error', (error) => {
      // 401: the key or session no longer holds; 403: a person no longer a member of the workspace.
      if (error.status === 401 || error.status === 403) latest.current.onRefused();
    });
    return () => copy.close();
  }, [credentials]);
  return state;
}
