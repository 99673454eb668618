// The workspace's groups, for the group pickers and the group headings of the rule list.
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Group } from '../api.js';
import { useApi } from '../session.js';

// A workspace rarely has more than a handful; one page of the largest size is all of them in practice.
const PAGE = 1000;

export function useGroups(): { groups: Group[] | null; reload: () => void } {
  const api = useApi();
  const [groups, setGroups] = useState<Group[] | null>(null);
  const reload = useCallback(() => {
    api((client) => client.GET('/v1/groups', { params: { query: { pageSize: String(PAGE) } } }))
      .then((answer) => setGroups(answer.data))
      .catch(() => setGroups((old) => old ?? []));
  }, [api]);
  useEffect(reload, [reload]);
  return { groups, reload };
}
