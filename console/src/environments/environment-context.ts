// The environment the console tries rules in (Try it, the lint, the editor's "Test this rule"), the
// workspace's environments and its variables (for the switcher, the Environments page and the `{{`
// completion): read once for the workspace shown, and again when the change stream moves.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Variable } from '../api.js';

/** The environment every workspace has, and the one used when none was chosen. */
export const DEFAULT_ENVIRONMENT = 'default';

export interface Environments {
  /** The environment chosen in the header (`default` until one is, or when the one chosen is gone). */
  chosen: string;
  choose: (name: string) => void;
  /** The environments' names, oldest first (null until read). */
  names: readonly string[] | null;
  /** The variables as the API lists them: a secret's values are null (set, never shown). */
  variables: readonly Variable[] | null;
  /** Reads both again (after a write of this console's own, before the stream says so). */
  reload: () => void;
}

export const EnvironmentContext = createContext<Environments>({
  chosen: DEFAULT_ENVIRONMENT,
  choose: () => {},
  names: null,
  variables: null,
  reload: () => {},
});

export function useEnvironments(): Environments {
  return useContext(EnvironmentContext);
}
