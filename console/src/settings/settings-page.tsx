// The workspace's settings: whether changes to rules and groups need a second pair of eyes, and who
// may give it. Admins and owners change them; everyone else reads what they mean for them.
import { useState } from 'preact/hooks';
import type { Settings } from '../api.js';
import { describeError, useApi, useSession } from '../session.js';
import { Said } from '../ui/said.js';
import { REVIEWER_WORDS, useSettings } from './use-settings.js';

export function SettingsPage() {
  const api = useApi();
  const { canAdmin } = useSession();
  const { settings: stored, reload } = useSettings();
  // What was just chosen shows at once (a radio keeps its choice), while the service answers.
  const [chosen, setChosen] = useState<Partial<Settings>>({});
  const settings = stored ? { ...stored, ...chosen } : null;
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  async function change(patch: Partial<Settings>) {
    setSaving(true);
    setChosen(patch);
    try {
      const answer = await api((client) => client.PATCH('/v1/settings', { body: patch }));
      setNotice(
        answer.data.review === 'required'
          ? `Review is required: editors now propose their changes, and ${REVIEWER_WORDS[answer.data.reviewers].toLowerCase()} review them.`
          : 'Review is off: editors change rules and groups directly.',
      );
      setError(null);
      setChosen(answer.data);
    } catch (failure) {
      setChosen({});
      setNotice(null);
      setError(`The setting was not changed: ${describeError(failure)}`);
    } finally {
      setSaving(false);
      reload();
    }
  }

  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      <Said notice={notice} error={error} />
      {settings === null ? <p>Loading…</p> : null}
      {settings ? (
        // Not disabled while saving: the focus stays on the choice just made.
        <fieldset class="group settings-review" disabled={!canAdmin} aria-busy={saving}>
          <legend>Review of changes</legend>
          <p class="hint">
            When review is required, editors cannot change rules and groups directly: they propose a change,
            someone else approves it, and it is merged as one revision. Admins and owners may still change
            them directly; the activity marks such changes.
          </p>
          <div class="choices" role="radiogroup" aria-label="Review">
            <label class="checkbox">
              <input
                type="radio"
                name="review"
                value="off"
                checked={settings.review === 'off'}
                onChange={() => change({ review: 'off' })}
              />
              Off: editors change rules and groups directly
            </label>
            <label class="checkbox">
              <input
                type="radio"
                name="review"
                value="required"
                checked={settings.review === 'required'}
                onChange={() => change({ review: 'required' })}
              />
              Required: editors propose changes for review
            </label>
          </div>
          <div class="field">
            <label for="reviewers">Who may approve a change</label>
            <select
              id="reviewers"
              value={settings.reviewers}
              aria-describedby="reviewers-hint"
              onChange={(e) => change({ reviewers: e.currentTarget.value as Settings['reviewers'] })}
            >
              {Object.entries(REVIEWER_WORDS).map(([value, words]) => (
                <option key={value} value={value}>
                  {words}
                </option>
              ))}
            </select>
            <small class="hint" id="reviewers-hint">
              Never the change’s own author.
            </small>
          </div>
          {canAdmin ? null : <p class="hint">Only admins and owners change these settings.</p>}
        </fieldset>
      ) : null}
    </section>
  );
}
