// The header's environment switcher: which environment Try it, the lint and the editor's "Test this
// rule" use. Shown once the workspace has more than `default`; the choice is kept per workspace.
import { useEnvironments } from './environment-context.js';

export function EnvironmentSwitcher() {
  const { chosen, choose, names } = useEnvironments();
  if (!names || names.length < 2) return null;
  return (
    <label
      class="environment-switcher"
      title="Try it, the lint and Test this rule use this environment's values"
    >
      <span>Environment</span>
      <select value={chosen} onChange={(event) => choose(event.currentTarget.value)}>
        {names.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
    </label>
  );
}
