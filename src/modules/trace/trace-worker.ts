// A trace pool's worker thread: runs trace jobs one at a time, keeping workspaces' rules compiled.
import { serveJobs } from '../../jobs/pool-worker.js';
import { createTraceJobs } from './trace-job.js';

/** Workspaces whose compiled rules each worker keeps. */
const MAX_KEPT_WORKSPACES = 64;

serveJobs(createTraceJobs(MAX_KEPT_WORKSPACES));
