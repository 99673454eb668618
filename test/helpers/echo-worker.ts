// A pool worker for the pool's own tests: answers each job with its name.
import { serveJobs } from '../../src/jobs/pool-worker.js';

serveJobs((job: { name: string }) => job.name);
