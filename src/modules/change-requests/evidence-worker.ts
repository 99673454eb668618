// An evidence pool's worker thread: computes change requests' evidence one at a time.
import { serveJobs } from '../../jobs/pool-worker.js';
import { runEvidence } from './evidence-job.js';

serveJobs(runEvidence);
