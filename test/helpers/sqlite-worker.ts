// A pool worker that holds a SQLite connection, as the import worker does: it opens the file its first
// job names, keeps the connection and a prepared statement between jobs, and answers with a count.
// `hog` makes it use memory until its limit ends it, with the connection still open.
import Database from 'better-sqlite3';
import { serveJobs } from '../../src/jobs/pool-worker.js';

let db: Database.Database | undefined;
let count: Database.Statement | undefined;
const hoard: number[][] = [];

serveJobs((job: { file: string; hog?: true }) => {
  db ??= new Database(job.file);
  count ??= db.prepare('select count(*) as n from notes');
  if (job.hog) for (;;) hoard.push(new Array(1_000_000).fill(hoard.length));
  return (count.get() as { n: number }).n;
});
