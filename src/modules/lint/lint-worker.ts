// A lint pool's worker thread: runs lint jobs one at a time, keeping workspaces' rules and groups.
import { serveJobs } from '../../jobs/pool-worker.js';
import { createLintJobs } from './lint-job.js';

serveJobs(createLintJobs());
