// The choices of a group picker: ungrouped, then the workspace's groups by name.
import type { Group } from '../api.js';

export function GroupOptions({ groups }: { groups: Group[] | null }) {
  return (
    <>
      <option value="">Ungrouped</option>
      {(groups ?? []).map((group) => (
        <option key={group.id} value={group.id}>
          {group.name}
        </option>
      ))}
    </>
  );
}
