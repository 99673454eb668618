// Said where edit controls would be, to someone who may only read: why there are none (their role, or
// the key they signed in with), so an absent button does not look like a fault.
import { useSession } from '../session.js';

/** `can`: what they may do here, after "You can" ("view rules"). */
export function ReadOnlyNote({ can }: { can: string }) {
  const { role, scope, credentials } = useSession();
  const why =
    role === 'viewer'
      ? 'your role is viewer'
      : 'key' in credentials && scope === 'read'
        ? 'the key you signed in with is read-only'
        : `your role is ${role}`;
  return (
    <p class="notice read-only" role="note">
      You can {can}; {why}.
    </p>
  );
}
