// Move rules in and out: a Requestly export (dropped or chosen) is first checked by a dry run whose
// report says what becomes of each record, and imported only when confirmed; the workspace exports
// to a Requestly-compatible file. Importing writes (a dry run too needs the write scope), so someone
// who may only read is offered the export alone.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type paths } from '../api.js';
import { detailWords } from '../forms/labels.js';
import { describeError, useApi, useSession } from '../session.js';
import { ErrorSummary } from '../ui/error-summary.js';
import { ReadOnlyNote } from '../ui/read-only-note.js';

type Report = paths['/v1/import']['post']['responses'][200]['content']['application/json']['data'];
type Mode = 'copy' | 'overwrite';
type OnError = 'abort' | 'skip';

interface Chosen {
  name: string;
  text: string;
}

export function MovePage() {
  const api = useApi();
  const { canWrite } = useSession();
  const [file, setFile] = useState<Chosen | null>(null);
  const [mode, setMode] = useState<Mode>('copy');
  const [onError, setOnError] = useState<OnError>('abort');
  const [report, setReport] = useState<Report | null>(null);
  const [error, setError] = useState<ApiError | string | null>(null);
  const [busy, setBusy] = useState(false);

  async function send(chosen: Chosen, dryRun: boolean, options = { mode, onError }) {
    setBusy(true);
    try {
      const answer = await api((client) =>
        client.POST('/v1/import', {
          params: { query: { dryRun: dryRun ? 'true' : 'false', ...options } },
          // The file goes as it is: the service reports a bad record with its place in the file.
          body: [] as never,
          bodySerializer: () => chosen.text,
        }),
      );
      setReport(answer.data);
      setError(null);
    } catch (failure) {
      setReport(null);
      setError(failure instanceof ApiError ? failure : describeError(failure));
    } finally {
      setBusy(false);
    }
  }

  async function choose(picked: File | undefined) {
    if (!picked) return;
    const chosen = { name: picked.name, text: await picked.text() };
    setFile(chosen);
    await send(chosen, true);
  }

  function setOption(next: { mode: Mode; onError: OnError }) {
    setMode(next.mode);
    setOnError(next.onError);
    // The report answers for the options it was made with: check again with the new ones.
    if (file && report?.dryRun !== false) send(file, true, next);
  }

  async function exportFile() {
    try {
      const answer = await api((client) => client.GET('/v1/export', { parseAs: 'blob' }));
      const link = document.createElement('a');
      link.href = URL.createObjectURL(answer as Blob);
      link.download = `rulekeeper-export-${new Date().toISOString().slice(0, 10)}.json`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
    } catch (failure) {
      setError(describeError(failure));
    }
  }

  const blocked = report?.dryRun && report.failed > 0 && onError === 'abort';
  return (
    <section aria-labelledby="move-title">
      <h1 id="move-title">Import and export</h1>
      <h2>Import a Requestly file</h2>
      {canWrite ? (
        <ImportSection
          file={file}
          mode={mode}
          onError={onError}
          report={report}
          busy={busy}
          blocked={Boolean(blocked)}
          onChoose={choose}
          onOption={setOption}
          onConfirm={() => file && send(file, false)}
        />
      ) : (
        <ReadOnlyNote can="export the rules, not import them" />
      )}
      <ErrorSummary
        error={error}
        title={error instanceof ApiError ? 'The file was not imported.' : undefined}
      />
      <h2>Export</h2>
      <p>Every group and rule of the workspace, as a file Requestly and Rulekeeper can import.</p>
      <button type="button" onClick={exportFile}>
        Export to a file
      </button>
    </section>
  );
}

interface ImportProps {
  file: Chosen | null;
  mode: Mode;
  onError: OnError;
  report: Report | null;
  busy: boolean;
  blocked: boolean;
  onChoose: (picked: File | undefined) => void;
  onOption: (next: { mode: Mode; onError: OnError }) => void;
  onConfirm: () => void;
}

/** The file to import (dropped or chosen), the options, and the dry run's report to confirm. */
function ImportSection({
  file,
  mode,
  onError,
  report,
  busy,
  blocked,
  onChoose,
  onOption,
  onConfirm,
}: ImportProps) {
  const [dragging, setDragging] = useState(false);
  return (
    <>
      <label
        class={dragging ? 'dropzone dragging' : 'dropzone'}
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(event) => {
          event.preventDefault();
          setDragging(false);
          onChoose(event.dataTransfer?.files[0]);
        }}
      >
        <span>Drop a Requestly export (.json) here, or choose one</span>
        <input
          type="file"
          accept="application/json,.json"
          onChange={(event) => onChoose(event.currentTarget.files?.[0])}
        />
      </label>
      <fieldset class="options">
        <legend>Records whose id is already here</legend>
        <Radio
          name="mode"
          value="copy"
          checked={mode === 'copy'}
          onPick={() => onOption({ mode: 'copy', onError })}
        >
          Copy: every record gets a new id
        </Radio>
        <Radio
          name="mode"
          value="overwrite"
          checked={mode === 'overwrite'}
          onPick={() => onOption({ mode: 'overwrite', onError })}
        >
          Overwrite: a record replaces the rule or group with its id
        </Radio>
      </fieldset>
      <fieldset class="options">
        <legend>Records that fail</legend>
        <Radio
          name="onError"
          value="abort"
          checked={onError === 'abort'}
          onPick={() => onOption({ mode, onError: 'abort' })}
        >
          Import nothing if any record fails
        </Radio>
        <Radio
          name="onError"
          value="skip"
          checked={onError === 'skip'}
          onPick={() => onOption({ mode, onError: 'skip' })}
        >
          Import the others, skipping those
        </Radio>
      </fieldset>
      {report && file ? (
        <ImportReport
          report={report}
          fileName={file.name}
          busy={busy}
          blocked={blocked}
          onConfirm={onConfirm}
        />
      ) : null}
    </>
  );
}

interface RadioProps {
  name: string;
  value: string;
  checked: boolean;
  onPick: () => void;
  children: string;
}

function Radio({ name, value, checked, onPick, children }: RadioProps) {
  const id = `${name}-${value}`;
  return (
    <span class="checkbox">
      <input type="radio" id={id} name={name} value={value} checked={checked} onChange={onPick} />
      <label for={id}>{children}</label>
    </span>
  );
}

interface ReportProps {
  report: Report;
  fileName: string;
  busy: boolean;
  blocked: boolean;
  onConfirm: () => void;
}

/** A record's problem in the form's words: "Pair 1 · Destination: must not be empty". */
function problemWords(detail: { path: string; message: string }): string {
  // The file's pointers start with the record's place, which the card already names.
  const inRecord = detail.path.replace(/^\/\d+/, '');
  return inRecord ? detailWords({ path: inRecord, message: detail.message }) : detail.message;
}

const OUTCOME_WORDS = { created: 'Created', updated: 'Updated', failed: 'Failed' } as const;
const DRY_OUTCOME_WORDS = { created: 'To create', updated: 'To update', failed: 'Fails' } as const;

/** The id a record has here; in a dry run, an id drawn afresh is only an example of the form. */
function IdHere({ item, dryRun }: { item: Report['items'][number]; dryRun: boolean }) {
  if (item.id === null) return <>—</>;
  if (dryRun && item.id !== item.sourceId) return <>a new id, given when imported</>;
  return <code>{item.id}</code>;
}

function ImportReport({ report, fileName, busy, blocked, onConfirm }: ReportProps) {
  const verb = report.dryRun ? 'would be' : 'were';
  const words = report.dryRun ? DRY_OUTCOME_WORDS : OUTCOME_WORDS;
  const failures = report.items.filter((item) => item.outcome === 'failed');
  // A new report is read from its heading: on a phone it would start below the options.
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
    heading.current?.scrollIntoView({ block: 'start' });
  }, [report]);
  const fresh = report.dryRun && report.items.some((item) => item.id !== null && item.id !== item.sourceId);
  return (
    <section class="import-report" aria-labelledby="report-title" aria-busy={busy}>
      <h3 id="report-title" tabIndex={-1} ref={heading}>
        {report.dryRun ? `Checked ${fileName}: nothing imported yet` : `Imported ${fileName}`}
      </h3>
      <p role="status">
        {report.created} {verb} created, {report.updated} {verb} updated, {report.failed} failed.
      </p>
      {fresh ? (
        <p class="hint">
          Records that need a new id get it when they are imported: the check does not reserve one.
        </p>
      ) : null}
      {failures.length ? (
        // Read first: on a phone, the failures of a long file would be far down its table.
        <section class="import-failures" aria-labelledby="failures-title">
          <h4 id="failures-title">
            {failures.length === 1 ? 'The record that fails' : `The ${failures.length} records that fail`}
          </h4>
          <ul>
            {failures.map((item) => (
              <li key={item.index}>
                <strong>
                  Record {item.index + 1}
                  {item.name ? ` “${item.name}”` : ''}
                </strong>
                : {item.message}
                <ul>
                  {(item.details ?? []).map((detail) => (
                    <li key={detail.path + detail.message}>{problemWords(detail)}</li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <div class="table-wrap">
        <table class="cards">
          <caption class="visually-hidden">What becomes of each record of the file</caption>
          <thead>
            <tr>
              <th scope="col">Record</th>
              <th scope="col">Kind</th>
              <th scope="col">Name</th>
              <th scope="col">Id in the file</th>
              <th scope="col">Id here</th>
              <th scope="col">Outcome</th>
              <th scope="col">Notes</th>
            </tr>
          </thead>
          <tbody>
            {report.items.map((item) => (
              <tr key={item.index} class={item.outcome}>
                <td data-label="Record">{item.index + 1}</td>
                <td data-label="Kind">{item.objectType ?? 'neither rule nor group'}</td>
                <th scope="row" data-label="Name">
                  {item.name ?? '(no name)'}
                </th>
                <td data-label="Id in the file">{item.sourceId ? <code>{item.sourceId}</code> : '(none)'}</td>
                <td data-label="Id here">
                  <IdHere item={item} dryRun={report.dryRun} />
                </td>
                <td data-label="Outcome">{words[item.outcome]}</td>
                <td data-label="Notes" class={item.warnings.length || item.message ? '' : 'empty-cell'}>
                  {item.message ? <strong>{item.message}</strong> : null}
                  {(item.details ?? []).length + item.warnings.length ? (
                    <ul>
                      {(item.details ?? []).map((detail) => (
                        <li key={detail.path + detail.message}>{problemWords(detail)}</li>
                      ))}
                      {item.warnings.map((warning) => (
                        <li key={warning}>{warning}</li>
                      ))}
                    </ul>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {report.dryRun ? (
        <div class="actions">
          <button type="button" onClick={onConfirm} disabled={busy || blocked}>
            Import {report.created + report.updated} records
          </button>
          {blocked ? <p>Some records fail: fix the file, or choose to skip the records that fail.</p> : null}
        </div>
      ) : null}
    </section>
  );
}
