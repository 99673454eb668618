// A request to try: URL, method, resource type and page URL, sent to POST /v1/trace against the
// workspace's rules (Try it) or against the rule being edited, before it is saved (`rules`), in the
// environment chosen in the header (its variables' values fill the rules' `{{NAME}}`).
import { useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { useEnvironments } from '../environments/environment-context.js';
import { FieldErrorText } from '../forms/field-error-text.js';
import { errorsByPointer, FieldErrorsContext, fieldId, useFieldErrors } from '../forms/field-errors.js';
import { describeError, useApi } from '../session.js';
import { ErrorSummary } from '../ui/error-summary.js';
import { type HeaderValues, parseHeaderLines } from './trace-changes.js';
import { type TraceData, type TraceRequest, TraceResult } from './trace-result.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
type ResourceType = NonNullable<TraceRequest['request']['resourceType']>;

// Written as a record so that the typecheck fails when the document has one more or one fewer.
const RESOURCE_TYPES = Object.keys({
  main_frame: true,
  sub_frame: true,
  xmlhttprequest: true,
  script: true,
  stylesheet: true,
  image: true,
  media: true,
  font: true,
  websocket: true,
} satisfies Record<ResourceType, true>);

export interface TraceFormProps {
  /** Unsaved rules to try instead of the workspace's. */
  rules?: unknown[];
  submitLabel: string;
  /** Where ids start, when two forms share a page. */
  idPrefix: string;
  /**
   * The service's word on the one unsaved rule: null when it was tried, else why it is not valid,
   * its details pointing into the rule (`/pairs/0/destination`) for the editor's own fields.
   */
  onRuleChecked?: (invalid: ApiError | null) => void;
}

const INLINE_RULE = '/rules/0';
const HEADERS = '/request/headers';

export function TraceForm({ rules, submitLabel, idPrefix, onRuleChecked }: TraceFormProps) {
  const api = useApi();
  const { chosen: environment, names: environments } = useEnvironments();
  const [url, setUrl] = useState('');
  const [method, setMethod] = useState('GET');
  const [resourceType, setResourceType] = useState<ResourceType | ''>('');
  const [pageUrl, setPageUrl] = useState('');
  const [headerLines, setHeaderLines] = useState('');
  const [headersProblem, setHeadersProblem] = useState<string | null>(null);
  const [includeInactive, setIncludeInactive] = useState(false);
  // The answer with the headers it was asked with: what the rules did to them is the difference.
  const [trace, setTrace] = useState<{ data: TraceData; sent: HeaderValues } | null>(null);
  const [error, setError] = useState<ApiError | string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    const parsed = parseHeaderLines(headerLines);
    // Checked here: the API would say only that `headers` is not an object of strings.
    setHeadersProblem(
      'badLine' in parsed ? `Line ${parsed.badLine} is not a header: write it as Name: value.` : null,
    );
    if ('badLine' in parsed) {
      setTrace(null);
      document.getElementById(fieldId(HEADERS))?.focus();
      return;
    }
    const body: TraceRequest = {
      request: {
        url,
        method,
        ...(resourceType ? { resourceType } : {}),
        ...(pageUrl ? { pageUrl } : {}),
        ...(Object.keys(parsed.headers).length ? { headers: parsed.headers } : {}),
      },
      // A draft as the editor holds it, maybe not yet valid: the service checks it and says where.
      ...(rules ? { rules: rules as NonNullable<TraceRequest['rules']> } : { includeInactive }),
      environment,
    };
    setBusy(true);
    try {
      const answer = await api((client) => client.POST('/v1/trace', { body }));
      setTrace({ data: answer.data, sent: parsed.headers });
      setError(null);
      onRuleChecked?.(null);
    } catch (failure) {
      setTrace(null);
      const details = failure instanceof ApiError ? failure.details : [];
      if (
        onRuleChecked &&
        details.length &&
        details.every(({ path }) => path.startsWith(`${INLINE_RULE}/`))
      ) {
        const failed = failure as ApiError;
        const inRule = details.map((detail) => ({ ...detail, path: detail.path.slice(INLINE_RULE.length) }));
        onRuleChecked(new ApiError(failed.status, failed.body && { ...failed.body, details: inRule }));
        setError('The rule as written cannot be tried: its problems are shown at its fields above.');
        return;
      }
      setError(failure instanceof ApiError ? failure : describeError(failure));
    } finally {
      setBusy(false);
    }
  }

  const errors = new Map(error instanceof ApiError ? errorsByPointer(error.details) : []);
  if (headersProblem) errors.set(HEADERS, [headersProblem]);
  return (
    <FieldErrorsContext.Provider value={errors}>
      <form class="trace-form" onSubmit={submit} aria-busy={busy} noValidate>
        <ErrorSummary error={error} />
        <Input pointer="/request/url" label="URL" value={url} onInput={setUrl} required />
        <div class="row">
          <div class="field">
            <label for={`${idPrefix}-method`}>Method</label>
            <select
              id={`${idPrefix}-method`}
              value={method}
              onChange={(e) => setMethod(e.currentTarget.value)}
            >
              {METHODS.map((m) => (
                <option key={m}>{m}</option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for={`${idPrefix}-type`}>Resource type</label>
            <select
              id={`${idPrefix}-type`}
              value={resourceType}
              onChange={(e) => setResourceType(e.currentTarget.value as ResourceType | '')}
            >
              <option value="">(unknown)</option>
              {RESOURCE_TYPES.map((type) => (
                <option key={type}>{type}</option>
              ))}
            </select>
          </div>
        </div>
        <Input pointer="/request/pageUrl" label="Page URL (optional)" value={pageUrl} onInput={setPageUrl} />
        <HeadersInput value={headerLines} onInput={setHeaderLines} />
        {rules ? null : (
          <div class="field checkbox">
            <input
              type="checkbox"
              id={`${idPrefix}-inactive`}
              checked={includeInactive}
              onChange={(e) => setIncludeInactive(e.currentTarget.checked)}
            />
            <label for={`${idPrefix}-inactive`}>Also explain inactive rules</label>
          </div>
        )}
        {environments && environments.length > 1 ? (
          <p class="hint trace-environment">
            In the environment <strong>{environment}</strong>: its variables fill the rules'{' '}
            <code>{'{{NAME}}'}</code>
            (choose another at the top).
          </p>
        ) : null}
        <button type="submit" disabled={busy}>
          {submitLabel}
        </button>
      </form>
      {trace ? <TraceResult trace={trace.data} sentHeaders={trace.sent} /> : null}
    </FieldErrorsContext.Provider>
  );
}

interface InputProps {
  pointer: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  required?: boolean;
}

function Input({ pointer, label, value, onInput, required }: InputProps) {
  const errors = useFieldErrors(pointer);
  const id = fieldId(pointer);
  return (
    <div class={errors.length ? 'field invalid' : 'field'}>
      <label for={id}>{label}</label>
      <input
        id={id}
        type="text"
        inputMode="url"
        spellcheck={false}
        autocomplete="off"
        placeholder="https://example.com/path"
        value={value}
        required={required}
        aria-invalid={errors.length ? 'true' : undefined}
        aria-describedby={errors.length ? `${id}-error` : undefined}
        onInput={(event) => onInput(event.currentTarget.value)}
      />
      <FieldErrorText id={id} messages={errors} />
    </div>
  );
}

/** The request's headers, one `Name: value` a line, so that header rules can be tried on real ones. */
function HeadersInput({ value, onInput }: { value: string; onInput: (value: string) => void }) {
  const errors = useFieldErrors(HEADERS);
  const id = fieldId(HEADERS);
  return (
    <div class={errors.length ? 'field invalid' : 'field'}>
      <label for={id}>
        Request headers <span class="optional">(optional)</span>
      </label>
      <textarea
        id={id}
        rows={3}
        spellcheck={false}
        placeholder={'Origin: https://app.example.com\nCookie: session=1'}
        value={value}
        aria-invalid={errors.length ? 'true' : undefined}
        aria-describedby={errors.length ? `${id}-hint ${id}-error` : `${id}-hint`}
        onInput={(event) => onInput(event.currentTarget.value)}
      />
      <small class="hint" id={`${id}-hint`}>
        One <code>Name: value</code> a line, as the browser would send them.
      </small>
      <FieldErrorText id={id} messages={errors} />
    </div>
  );
}
