// The text of the change stream's server-sent events: `change` for each change of a revision small
// enough to send, `bulk` for a revision too large to send change by change.
import { type StreamBatch, toFeedItem } from './changes-service.js';
import type { FeedRow } from './changes-store.js';

/** One revision's events, ready to write to every stream that has not seen it. */
export interface RevisionText {
  revision: number;
  text: string;
}

/**
 * The events of `rows` (whole revisions), each revision's text apart. Only the last event of a
 * revision carries its `id`, so a client cut off inside a revision resumes before it, not after.
 */
function changeEvents(rows: FeedRow[]): RevisionText[] {
  const out: RevisionText[] = [];
  rows.forEach((row, i) => {
    const item = toFeedItem(row);
    const last = rows[i + 1]?.revision !== row.revision;
    const text = `event: change\n${last ? `id: ${item.revision}\n` : ''}data: ${JSON.stringify(item)}\n\n`;
    const current = out.at(-1);
    if (current?.revision === item.revision) current.text += text;
    else out.push({ revision: item.revision, text });
  });
  return out;
}

/**
 * A revision of more changes than a stream sends one by one (an import of 100,000 records) is one
 * small event: sent whole, it would be megabytes per stream, held in memory for each slow reader.
 * The client reads the lists again, as after `reset`.
 */
export const bulkEvent = (revision: number, changes: number): RevisionText => ({
  revision,
  text: `event: bulk\nid: ${revision}\ndata: ${JSON.stringify({ revision, changes })}\n\n`,
});

export const eventsOf = (batch: StreamBatch): RevisionText[] =>
  'bulk' in batch ? [bulkEvent(batch.bulk.revision, batch.bulk.changes)] : changeEvents(batch.rows);
