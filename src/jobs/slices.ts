// Long work (an import's records, an export's pages) runs in slices: between two, the event loop
// answers everyone else (I/O and timers run before `setImmediate` callbacks), and the work stops if
// it was abandoned meanwhile (its client gone, or its time limit passed).
import { throwIfAbandoned } from '../db/abandon.js';

/** Items handled between two turns of the event loop: about a few milliseconds of work each. */
export const SLICE_ITEMS = 500;

/** Lets everyone else's work run. */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Lets everyone else's work run, then throws if this work was abandoned meanwhile. */
export async function nextSlice(signal?: AbortSignal): Promise<void> {
  await nextTurn();
  signal?.throwIfAborted();
  throwIfAbandoned();
}
