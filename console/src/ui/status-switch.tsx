// A rule's or a group's status as a switch: its name says whose it is ("checkout redirect active"),
// its state is aria-checked, and the word on it says the same to sighted users.
export function StatusSwitch({
  name,
  status,
  onSwitch,
}: {
  name: string;
  status: string;
  onSwitch: () => void;
}) {
  return (
    <button
      type="button"
      role="switch"
      class="switch"
      aria-checked={status === 'Active'}
      aria-label={`${name} active`}
      onClick={onSwitch}
    >
      <span aria-hidden="true">{status}</span>
    </button>
  );
}
