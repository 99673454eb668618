// Where a normalised value came from in what was sent: JSON Pointers of the canonical shape mapped back.

/**
 * Normalisers that move a value (a lifted `response.statusCode`, a one-object `modifications`, a
 * filter whose neighbours were dropped, a renamed `pageUrl`) record where it was; `toSent` turns a
 * pointer into the canonical value into one into the value as sent, so errors name what the caller
 * wrote. The longest recorded prefix wins, so a move inside a moved value is recorded in full.
 */
export class PathMap {
  readonly #moves = new Map<string, string>();

  /** The value now at `canonical` was sent at `sent` (both JSON Pointers from the same root). */
  moved(canonical: string, sent: string): void {
    if (canonical !== sent) this.#moves.set(canonical, sent);
  }

  toSent(path: string): string {
    if (this.#moves.size === 0) return path;
    // From the whole path down to its first token: the first recorded prefix is the longest.
    for (let end = path.length; end > 0; end = path.lastIndexOf('/', end - 1)) {
      const sent = this.#moves.get(path.slice(0, end));
      if (sent !== undefined) return sent + path.slice(end);
    }
    return path;
  }
}
