// A rule's or a group's status as a switch: its name says whose it is ("checkout redirect active"),
// its state is aria-checked, and the word on it says the same to sighted users. For someone who may
// not change it (`onSwitch` null), the status as plain text: nothing offered that would be refused.
export function StatusSwitch({
  name,
  status,
  onSwitch,
}: {
  name: string;
  status: string;
  onSwitch: (() => void) | null;
}) {
  if (!onSwitch) return <span class={`status-text ${status === 'Active' ? 'on' : 'off'}`}>{status}</span>;
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
