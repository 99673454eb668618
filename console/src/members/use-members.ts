// The workspace's members, for the Members page and for naming people in the activity.
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Schemas } from '../api.js';
import { describeError, useApi } from '../session.js';

export type Member = Schemas['Member'];

export function useMembers(): {
  members: Member[] | null;
  error: string | null;
  reload: () => void;
} {
  const api = useApi();
  const [members, setMembers] = useState<Member[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(() => {
    api((client) => client.GET('/v1/members'))
      .then((answer) => {
        setMembers(answer.data);
        setError(null);
      })
      .catch((failure) => {
        setError(describeError(failure));
        setMembers((old) => old ?? []);
      });
  }, [api]);
  useEffect(reload, [reload]);
  return { members, error, reload };
}

/** Service users (a workspace key's) have ids so: a machine, not a person. */
export const isMachine = (userId: string) => userId.startsWith('svc_');
