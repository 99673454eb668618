// A browser rules pool's worker thread: runs compiles one at a time, keeping workspaces' translations;
// each answer's bytes are moved back, not copied (100,000 rules' answer is tens of megabytes).
import { serveJobs } from '../../jobs/pool-worker.js';
import { createBrowserRulesJobs } from './browser-rules-job.js';

serveJobs(createBrowserRulesJobs(), (outcome) => [outcome.json.buffer as ArrayBuffer]);
