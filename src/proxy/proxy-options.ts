// What `rulekeeper proxy` is started with (startProxy).
import type { RuleFeed } from './rule-feed.js';

export interface ProxyOptions {
  /** 0: any free port. mockttp listens on every interface (it takes no address): see allowRemote. */
  port: number;
  ca: { keyPath: string; certPath: string };
  feed: Pick<RuleFeed, 'current'>;
  /** Run rules' `code` (Response and Request) in a worker, each call limited in time and memory. */
  allowCode: boolean;
  codeTimeoutMs: number;
  /** The code worker's heap limit (default 64 MB). */
  codeMemoryMb?: number;
  /** An upstream that has not begun to answer by then gets the client a 504. */
  upstreamTimeoutMs: number;
  /** The most of a body a rule may need whole (request or answer); past it the body streams unchanged. */
  maxBodyBytes: number;
  /** Serve Redirects to local files from this directory (and nowhere else). */
  allowFilesDir?: string;
  /** Serve clients of other machines too (default: loopback clients only). */
  allowRemote?: boolean;
  /** Certificates to trust for upstream HTTPS besides the system's (PEM text). */
  upstreamCas?: string[];
  log: (message: string) => void;
  /** Told of the rules that acted on each request (the hit reporter); nothing is counted without it. */
  hits?: { acted(ruleIds: readonly string[]): void };
}
