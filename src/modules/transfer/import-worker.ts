// The import pool's worker thread: runs one import at a time on its own database connection.
import { serveJobs } from '../../jobs/pool-worker.js';
import { createImportJobs, reportBytes } from './import-job.js';

serveJobs(createImportJobs(), reportBytes);
