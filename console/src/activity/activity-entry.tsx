// One entry of the activity: who did what, what it is about (a rule opens in the editor, a change
// request its page), when, and for security events and the team's work the way in (and the address,
// for admins).
import { hrefFor } from '../route.js';
import { RelativeTime } from '../ui/relative-time.js';
import { actorOf, type Entry, isWork, wayIn, whatHappened } from './entry-words.js';

function About({ object }: { object: Entry['object'] }) {
  // A user the entry is about is named in its sentence already.
  if (!object || object.type === 'user') return null;
  if (object.type === 'rule')
    return (
      <span>
        rule <a href={hrefFor({ page: 'rule', ruleId: object.id })}>{object.id}</a>
      </span>
    );
  if (object.type === 'group')
    return (
      <span>
        group <a href={hrefFor({ page: 'groups' })}>{object.id}</a>
      </span>
    );
  if (object.type === 'change_request')
    return (
      <span>
        change request <a href={hrefFor({ page: 'change-request', id: object.id })}>{object.id}</a>
      </span>
    );
  // A deleted suite has no page; the suites' page lists those that remain.
  if (object.type === 'test_suite')
    return (
      <span>
        test suite <a href={hrefFor({ page: 'test-suites' })}>{object.id}</a>
      </span>
    );
  if (object.type === 'variable' || object.type === 'environment')
    return (
      <span>
        {object.type} <a href={hrefFor({ page: 'environments' })}>{object.id}</a>
      </span>
    );
  return (
    <span>
      {object.type} <code>{object.id}</code>
    </span>
  );
}

export function ActivityEntry({ entry, nameOf }: { entry: Entry; nameOf: (userId: string) => string }) {
  const way = wayIn(entry);
  const security = entry.via !== null && !isWork(entry);
  return (
    <li class={`activity-entry${security ? ' security' : ''}`}>
      <p class="what">
        <strong>{actorOf(entry)}</strong> {whatHappened(entry, nameOf)}
      </p>
      <p class="meta">
        <RelativeTime at={entry.at} />
        {entry.object && entry.object.type !== 'user' ? (
          <>
            {' · '}
            <About object={entry.object} />
          </>
        ) : null}
        {way ? ` · ${way}` : null}
        {entry.address ? ` · from ${entry.address}` : null}
      </p>
    </li>
  );
}
