// One entry of the activity: who did what, what it is about (a rule opens in the editor), when, and
// for security events the way in and the address.
import { hrefFor } from '../route.js';
import { RelativeTime } from '../ui/relative-time.js';
import { actorOf, type Entry, wayIn, whatHappened } from './entry-words.js';

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
  return (
    <span>
      {object.type} <code>{object.id}</code>
    </span>
  );
}

export function ActivityEntry({ entry, nameOf }: { entry: Entry; nameOf: (userId: string) => string }) {
  const way = wayIn(entry);
  const security = entry.via !== null;
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
