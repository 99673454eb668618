// Reads the workspace's environments and variables for the EnvironmentContext, and keeps the
// environment chosen in this browser for each workspace (localStorage: a name, never a value). Until
// one is chosen, it is the one the key signed in with is bound to, else `default`, as the service
// would choose.
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import type { Variable } from '../api.js';
import { useApi } from '../session.js';
import { DEFAULT_ENVIRONMENT, type Environments } from './environment-context.js';

const itemFor = (workspaceId: string) => `rulekeeper.environment.${workspaceId}`;

function remembered(workspaceId: string, first: string): string {
  try {
    return localStorage.getItem(itemFor(workspaceId)) ?? first;
  } catch {
    // Storage refused (a locked-down browser): the choice lasts as long as the page.
    return first;
  }
}

/**
 * `changes`: the change stream's count; every move reads the lists again. `keyEnvironment`: the
 * environment the key signed in with is bound to, if any.
 */
export function useWorkspaceEnvironments(
  workspaceId: string,
  changes: number,
  keyEnvironment?: string,
): Environments {
  const api = useApi();
  const [names, setNames] = useState<string[] | null>(null);
  const [variables, setVariables] = useState<Variable[] | null>(null);
  const [wanted, setWanted] = useState(() => remembered(workspaceId, keyEnvironment ?? DEFAULT_ENVIRONMENT));
  const [reloads, setReloads] = useState(0);

  // `changes` and `reloads` say when to read again.
  useEffect(() => {
    let current = true;
    api((client) => client.GET('/v1/environments', { params: { query: {} } })).then(
      (answer) => current && setNames(answer.data.map((environment) => environment.name)),
      // Unread, the console still works in `default`, as the service does when told nothing.
      () => current && setNames((old) => old ?? [DEFAULT_ENVIRONMENT]),
    );
    api((client) => client.GET('/v1/variables', { params: { query: {} } })).then(
      (answer) => current && setVariables(answer.data),
      () => current && setVariables((old) => old ?? []),
    );
    return () => {
      current = false;
    };
  }, [api, changes, reloads]);

  const choose = useCallback(
    (name: string) => {
      setWanted(name);
      try {
        localStorage.setItem(itemFor(workspaceId), name);
      } catch {
        // As above: kept for this page only.
      }
    },
    [workspaceId],
  );
  const reload = useCallback(() => setReloads((count) => count + 1), []);
  // One deleted since it was chosen (here or elsewhere) falls back to `default`.
  const chosen = names === null || names.includes(wanted) ? wanted : DEFAULT_ENVIRONMENT;
  return useMemo(
    () => ({ chosen, choose, names, variables, reload }),
    [chosen, choose, names, variables, reload],
  );
}
