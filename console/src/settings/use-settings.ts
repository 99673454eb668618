// The workspace's settings (whether changes need review, and who reviews), read by every member: the
// editors' save buttons become "Propose change" while review is required.
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Settings } from '../api.js';
import { useApi } from '../session.js';

export function useSettings(): { settings: Settings | null; reload: () => void } {
  const api = useApi();
  const [settings, setSettings] = useState<Settings | null>(null);
  const reload = useCallback(() => {
    api((client) => client.GET('/v1/settings'))
      .then((answer) => setSettings(answer.data))
      // Unread, the console writes directly; the service still refuses what needs review (409), and
      // the editor then offers to propose.
      .catch(() => setSettings((old) => old ?? { review: 'off', reviewers: 'admins' }));
  }, [api]);
  useEffect(reload, [reload]);
  return { settings, reload };
}

/** Whether this person's writes to rules and groups go through change requests. */
export function mustPropose(settings: Settings | null, canWrite: boolean, canAdmin: boolean): boolean {
  return settings?.review === 'required' && canWrite && !canAdmin;
}

/** Whether this person may approve or ask for changes (never on their own change request). */
export function mayReview(settings: Settings | null, canWrite: boolean, canAdmin: boolean): boolean {
  return settings?.reviewers === 'editors' ? canWrite : canAdmin;
}

export const REVIEWER_WORDS: Record<Settings['reviewers'], string> = {
  admins: 'Admins and owners',
  editors: 'Editors, admins and owners',
};
