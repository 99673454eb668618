// Move rules in and out: a Requestly export (dropped or chosen) is first checked by a dry run whose
// report says what becomes of each record, and imported only when confirmed; the workspace exports
// to a Requestly-compatible file. Importing writes (a dry run too needs the write scope), so someone
// who may only read is offered the export alone.
import { useState } from 'preact/hooks';
import { ApiError, type paths } from '../api.js';
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

function ImportReport({ report, fileName, busy, blocked, onConfirm }: ReportProps) {
  const verb = report.dryRun ? 'would be' : 'were';
  return (
    <section class="import-report" aria-labelledby="report-title" aria-busy={busy}>
      <h3 id="report-title">
        {report.dryRun ? `Checked ${fileName}: nothing imported yet` : `Imported ${fileName}`}
      </h3>
      <p role="status">
        {report.created} {verb} created, {report.updated} {verb} updated, {report.failed} failed.
      </p>
      <div class="table-wrap">
        <table>
          <caption class="visually-hidden">What becomes of each record of the file</caption>
          <thead>
            <tr>
              <th scope="col">Record (from 0, as in the paths)</th>
              <th scope="col">Kind</th>
              <th scope="col">Name</th>
              <th scope="col">Id in the file → here</th>
              <th scope="col">Outcome</th>
              <th scope="col">Notes</th>
            </tr>
          </thead>
          <tbody>
            {report.items.map((item) => (
              <tr key={item.index} class={item.outcome}>
                <td>{item.index}</td>
                <td>{item.objectType ?? '?'}</td>
                <td>{item.name ?? '(none)'}</td>
                <td>
                  {item.sourceId ?? '(none)'} → {item.id ?? '—'}
                </td>
                <td>{item.outcome}</td>
                <td>
                  {item.message ? <strong>{item.message}</strong> : null}
                  <ul>
                    {(item.details ?? []).map((detail) => (
                      <li key={detail.path}>
                        <code>{detail.path}</code>: {detail.message}
                      </li>
                    ))}
                    {item.warnings.map((warning) => (
                      <li key={warning}>{warning}</li>
                    ))}
                  </ul>
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
