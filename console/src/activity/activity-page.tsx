// Who did what in the workspace, newest first: rule and group changes, change requests' steps and
// test suites' writes for everyone, and (for admins and owners) security events: sign-ins, keys, members. Filtered by kind and by member, a page at a
// time ("Load more" passes the cursor the service gave). While only the first page is shown it
// follows the change stream; further pages stay as read, so nothing moves under the reader.
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import type { paths } from '../api.js';
import { LiveContext } from '../live-context.js';
import { isMachine, useMembers } from '../members/use-members.js';
import { describeError, useApi, useSession } from '../session.js';
import { ActivityEntry } from './activity-entry.js';
import { CHANGE_KINDS, type Entry, type Kind, SECURITY_KINDS, WORK_KINDS } from './entry-words.js';

const PAGE_SIZE = 50;

type Query = NonNullable<paths['/v1/activity']['get']['parameters']['query']>;

export function ActivityPage() {
  const api = useApi();
  const session = useSession();
  const changes = useContext(LiveContext);
  const { members } = useMembers();
  const [kind, setKind] = useState<Kind | ''>('');
  const [actor, setActor] = useState('');
  const [entries, setEntries] = useState<Entry[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [more, setMore] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const read = (from?: string) => {
    const query: Query = {
      pageSize: String(PAGE_SIZE),
      ...(kind ? { kind } : {}),
      ...(actor ? { actor } : {}),
      ...(from ? { cursor: from } : {}),
    };
    return api((client) => client.GET('/v1/activity', { params: { query } }));
  };

  const heard = useRef(changes);
  useEffect(() => {
    // Past the first page, a change elsewhere does not reshuffle what is being read.
    const liveOnly = heard.current !== changes;
    heard.current = changes;
    if (liveOnly && more) return;
    let current = true;
    read().then(
      (answer) => {
        if (!current) return;
        setEntries(answer.data);
        setCursor(answer.nextCursor);
        setMore(false);
        setError(null);
      },
      (failure) => current && setError(describeError(failure)),
    );
    return () => {
      current = false;
    };
  }, [api, kind, actor, changes]);

  async function loadMore() {
    if (!cursor) return;
    setBusy(true);
    try {
      const answer = await read(cursor);
      setEntries((old) => [...(old ?? []), ...answer.data]);
      setCursor(answer.nextCursor);
      setMore(true);
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  }

  const names = new Map((members ?? []).map((member) => [member.userId, member.name]));
  const nameOf = (userId: string) =>
    userId === session.userId ? 'you' : (names.get(userId) ?? `a former member (${userId})`);
  // The service filters by people (usr_ ids); a workspace key's machine is found by its key's name.
  const people = (members ?? []).filter((member) => !isMachine(member.userId));

  return (
    <section aria-labelledby="activity-title">
      <h1 id="activity-title">Activity</h1>
      <p>
        Who did what in this workspace, newest first.{' '}
        {session.canAdmin
          ? 'As an admin you see security events too: sign-ins, keys and members, each with the way in and the address.'
          : 'Rule and group changes, change requests and test suites; security events are shown to admins and owners.'}
      </p>
      <form class="filters" aria-label="Filter the activity" onSubmit={(e) => e.preventDefault()}>
        <div class="field">
          <label for="activity-kind">What</label>
          <select
            id="activity-kind"
            value={kind}
            onChange={(e) => setKind(e.currentTarget.value as Kind | '')}
          >
            <option value="">Everything</option>
            <optgroup label="Rules, groups and variables">
              {Object.entries(CHANGE_KINDS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </optgroup>
            <optgroup label="Change requests and test suites">
              {Object.entries(WORK_KINDS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </optgroup>
            {session.canAdmin ? (
              <optgroup label="Security">
                {Object.entries(SECURITY_KINDS).map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </optgroup>
            ) : null}
          </select>
        </div>
        <div class="field">
          <label for="activity-member">Who</label>
          <select id="activity-member" value={actor} onChange={(e) => setActor(e.currentTarget.value)}>
            <option value="">Anyone</option>
            {people.map((member) => (
              <option key={member.userId} value={member.userId}>
                {member.userId === session.userId ? `${member.name} (you)` : member.name}
              </option>
            ))}
          </select>
        </div>
      </form>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {entries === null && !error ? <p>Loading…</p> : null}
      {entries?.length === 0 ? (
        <p class="empty">Nothing happened here{kind || actor ? ' that matches' : ''} yet.</p>
      ) : null}
      {entries?.length ? (
        <ol class="activity" aria-label="Activity, newest first">
          {entries.map((entry) => (
            <ActivityEntry key={entry.id} entry={entry} nameOf={nameOf} />
          ))}
        </ol>
      ) : null}
      {cursor && entries ? (
        <p>
          <button type="button" class="secondary" onClick={loadMore} disabled={busy}>
            Load more
          </button>
        </p>
      ) : null}
    </section>
  );
}
