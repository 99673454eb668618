// Webhooks (admins): the workspace's webhooks, one added with its signing secret shown once, each
// turned off or on, removed after a question, and its deliveries with every attempt, replayed on demand.
import { useEffect, useState } from 'preact/hooks';
import type { Schemas } from '../api.js';
import { ShownOnce } from '../keys/shown-once.js';
import { describeError, useApi, useSession } from '../session.js';
import { ConfirmDialog } from '../ui/confirm.js';
import { RelativeTime } from '../ui/relative-time.js';
import { Said } from '../ui/said.js';

type Webhook = Schemas['Webhook'];
type Delivery = Schemas['WebhookDelivery'];

const EVENT_CHOICES = {
  all: { label: 'Every event', events: null },
  rules: { label: 'Rule and group changes', events: ['rules.changed'] },
  reviews: {
    label: 'Change requests',
    events: [
      'change_request.opened',
      'change_request.updated',
      'change_request.reviewed',
      'change_request.merged',
      'change_request.closed',
    ],
  },
} as const satisfies Record<string, { label: string; events: Webhook['events'] }>;
type EventChoice = keyof typeof EVENT_CHOICES;

const eventsLabel = (events: Webhook['events']) =>
  events === null ? 'every event' : events.length === 1 ? events[0] : `${events.length} events`;

export function WebhooksPage() {
  const api = useApi();
  const session = useSession();
  const [hooks, setHooks] = useState<Webhook[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  // The secret just made: in this page's state only, so leaving the page forgets it.
  const [made, setMade] = useState<Schemas['NewWebhook'] | null>(null);
  const [removing, setRemoving] = useState<Webhook | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [reloads, setReloads] = useState(0);

  useEffect(() => {
    if (!session.canAdmin) return;
    let current = true;
    api((client) => client.GET('/v1/webhooks', { params: { query: { pageSize: '100' } } })).then(
      (answer) => {
        if (!current) return;
        setHooks(answer.data);
        setError(null);
      },
      (failure) => current && setError(describeError(failure)),
    );
    return () => {
      current = false;
    };
  }, [api, reloads, session.canAdmin]);

  async function setActive(hook: Webhook, active: boolean) {
    try {
      await api((client) =>
        client.PATCH('/v1/webhooks/{webhookId}', {
          params: { path: { webhookId: hook.id } },
          body: { active },
        }),
      );
      setNotice(
        active ? `${hook.url} is sent events again.` : `${hook.url} is sent nothing until turned on.`,
      );
      setError(null);
    } catch (failure) {
      setError(describeError(failure));
    }
    setReloads((count) => count + 1);
  }

  async function remove(hook: Webhook) {
    setRemoving(null);
    try {
      await api((client) =>
        client.DELETE('/v1/webhooks/{webhookId}', { params: { path: { webhookId: hook.id } } }),
      );
      setNotice(`The webhook to ${hook.url} is removed.`);
      setError(null);
    } catch (failure) {
      setError(describeError(failure));
    }
    setReloads((count) => count + 1);
  }

  if (!session.canAdmin)
    return (
      <section aria-labelledby="webhooks-title">
        <h1 id="webhooks-title">Webhooks</h1>
        <p>
          Only the workspace's admins and owners, signed in with an admin key or a session, manage webhooks.
        </p>
      </section>
    );

  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <p>
        Webhooks tell other systems (chat, CI, an audit trail) when rules change, with a signed{' '}
        <code>POST</code>. Each receiver checks the <code>Rulekeeper-Signature</code> header with the
        webhook's secret.
      </p>
      {made ? (
        <ShownOnce
          secret={{
            title: `The signing secret of ${made.url}`,
            why: 'Give it to the receiver: it checks every delivery with it. If you lose it, rotate it.',
            label: 'Signing secret',
            value: made.secret,
          }}
          onDone={() => setMade(null)}
        />
      ) : (
        <NewWebhookForm
          onMade={(hook) => {
            setMade(hook);
            setNotice(null);
            setReloads((count) => count + 1);
          }}
        />
      )}
      <h2>Webhooks of the workspace</h2>
      <Said notice={notice} error={error} />
      {hooks === null && !error ? <p>Loading…</p> : null}
      {hooks?.length === 0 ? <p class="empty">No webhooks yet.</p> : null}
      {hooks?.length ? (
        <div class="table-wrap">
          <table class="keys cards">
            <caption class="visually-hidden">Webhooks of the workspace, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Events</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {hooks.map((hook) => (
                <tr key={hook.id} class={hook.active ? undefined : 'inactive'}>
                  <th scope="row">
                    {hook.url}
                    {hook.description ? <span class="hint"> {hook.description}</span> : null}
                  </th>
                  <td data-label="Events">{eventsLabel(hook.events)}</td>
                  <td data-label="State">{hook.active ? 'on' : 'off'}</td>
                  <td class="actions">
                    <button
                      type="button"
                      class="secondary small"
                      aria-expanded={open === hook.id}
                      aria-label={`Deliveries of ${hook.url}`}
                      onClick={() => setOpen(open === hook.id ? null : hook.id)}
                    >
                      Deliveries
                    </button>
                    <button
                      type="button"
                      class="secondary small"
                      aria-label={`${hook.active ? 'Turn off' : 'Turn on'} ${hook.url}`}
                      onClick={() => setActive(hook, !hook.active)}
                    >
                      {hook.active ? 'Turn off' : 'Turn on'}
                    </button>
                    <button
                      type="button"
                      class="danger small"
                      aria-label={`Remove ${hook.url}`}
                      onClick={() => setRemoving(hook)}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {open && hooks?.some((hook) => hook.id === open) ? (
        <Deliveries key={open} hook={hooks.find((hook) => hook.id === open) as Webhook} />
      ) : null}
      {removing ? (
        <ConfirmDialog
          title={`Remove the webhook to ${removing.url}?`}
          confirmLabel="Remove webhook"
          onConfirm={() => remove(removing)}
          onCancel={() => setRemoving(null)}
        >
          <p>It is sent nothing more, and its deliveries are forgotten, pending ones too.</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

function NewWebhookForm({ onMade }: { onMade: (hook: Schemas['NewWebhook']) => void }) {
  const api = useApi();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [choice, setChoice] = useState<EventChoice>('all');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    try {
      const made = await api((client) =>
        client.POST('/v1/webhooks', {
          body: {
            url: url.trim(),
            events: EVENT_CHOICES[choice].events as Webhook['events'],
            ...(description.trim() ? { description: description.trim() } : {}),
          },
        }),
      );
      setUrl('');
      setDescription('');
      setError(null);
      onMade(made.data);
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="new-key" onSubmit={submit} aria-labelledby="new-webhook-title">
      <h2 id="new-webhook-title">Add a webhook</h2>
      <div class="field">
        <label for="webhook-url">URL</label>
        <input
          id="webhook-url"
          type="url"
          required
          maxLength={2048}
          placeholder="https://hooks.example.com/rulekeeper"
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
      </div>
      <div class="field">
        <label for="webhook-description">Description (optional)</label>
        <input
          id="webhook-description"
          maxLength={500}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
      </div>
      <div class="field">
        <label for="webhook-events">Events</label>
        <select
          id="webhook-events"
          value={choice}
          onChange={(e) => setChoice(e.currentTarget.value as EventChoice)}
        >
          {Object.entries(EVENT_CHOICES).map(([value, { label }]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </div>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      <button type="submit" disabled={busy}>
        Add webhook
      </button>
    </form>
  );
}

/** A webhook's deliveries, newest first, each with its attempts, replayed on demand. */
function Deliveries({ hook }: { hook: Webhook }) {
  const api = useApi();
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [reloads, setReloads] = useState(0);

  useEffect(() => {
    let current = true;
    api((client) =>
      client.GET('/v1/webhooks/{webhookId}/deliveries', {
        params: { path: { webhookId: hook.id }, query: { pageSize: '50' } },
      }),
    ).then(
      (answer) => {
        if (!current) return;
        setDeliveries(answer.data);
        setError(null);
      },
      (failure) => current && setError(describeError(failure)),
    );
    return () => {
      current = false;
    };
  }, [api, hook.id, reloads]);

  async function replay(delivery: Delivery) {
    try {
      await api((client) =>
        client.POST('/v1/webhooks/{webhookId}/deliveries/{deliveryId}/replay', {
          params: { path: { webhookId: hook.id, deliveryId: delivery.id } },
        }),
      );
      setNotice(`${delivery.type} is sent again now.`);
    } catch (failure) {
      setError(describeError(failure));
    }
    setReloads((count) => count + 1);
  }

  return (
    <section aria-labelledby="deliveries-title" class="deliveries">
      <h2 id="deliveries-title">Deliveries to {hook.url}</h2>
      <p>
        <button type="button" class="secondary small" onClick={() => setReloads((count) => count + 1)}>
          Refresh
        </button>
      </p>
      <Said notice={notice} error={error} />
      {deliveries === null && !error ? <p>Loading…</p> : null}
      {deliveries?.length === 0 ? <p class="empty">Nothing sent yet.</p> : null}
      {deliveries?.length ? (
        <ul aria-label="Deliveries, newest first" class="delivery-list">
          {deliveries.map((delivery) => {
            const last = delivery.attempts.at(-1);
            return (
              <li key={delivery.id}>
                <strong>{delivery.type}</strong> <RelativeTime at={delivery.createdAt} />:{' '}
                <span class={`delivery-state ${delivery.state}`}>{delivery.state}</span>
                {last ? ` (${last.statusCode ?? 'no answer'}${last.error ? `: ${last.error}` : ''})` : ''}{' '}
                <button
                  type="button"
                  class="secondary small"
                  aria-label={`Replay ${delivery.id}`}
                  onClick={() => replay(delivery)}
                >
                  Replay
                </button>
                {delivery.attempts.length > 0 ? (
                  <details>
                    <summary>
                      {delivery.attempts.length} attempt{delivery.attempts.length === 1 ? '' : 's'}
                    </summary>
                    <ol>
                      {delivery.attempts.map((attempt) => (
                        <li key={attempt.number}>
                          <RelativeTime at={attempt.at} />, {attempt.durationMs} ms:{' '}
                          {attempt.statusCode ?? 'no answer'}
                          {attempt.error ? ` (${attempt.error})` : ''}
                          {attempt.response ? <pre>{attempt.response}</pre> : null}
                        </li>
                      ))}
                    </ol>
                  </details>
                ) : null}
              </li>
            );
          })}
        </ul>
      ) : null}
    </section>
  );
}
