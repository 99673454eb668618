// Hop-by-hop headers (RFC 9110 §7.6.1) describe one connection, not the message: a proxy must not
// pass them on, or a client could steer the proxy's own connection to the upstream (keep-alive, TE,
// framing) and hide headers from it (a header named in Connection is dropped by the next hop).
type Headers = Record<string, string | string[] | undefined>;

const ALWAYS = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

function values(value: string | string[] | undefined): string[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** The lower-case names not to forward: the fixed list and those the Connection header names. */
const FIXED = new Set(ALWAYS);

export function hopByHopNames(connection: string | string[] | undefined, keepUpgrade = false): Set<string> {
  // Most requests name nothing in Connection but keep-alive or close: the fixed set, not a new one.
  if (!keepUpgrade && values(connection).every((value) => /^\s*(keep-alive|close)?\s*$/i.test(value)))
    return FIXED;
  const names = new Set(ALWAYS);
  for (const value of values(connection))
    for (const name of value.split(',')) if (name.trim()) names.add(name.trim().toLowerCase());
  if (keepUpgrade) {
    names.delete('upgrade');
    names.delete('connection');
  }
  return names;
}

/** Flat raw headers ([name, value, name, value, …], as Node gives them) without hop-by-hop ones. */
export function stripFlat(flat: string[], keepUpgrade = false): string[] {
  const connection: string[] = [];
  for (let i = 0; i < flat.length; i += 2)
    if (flat[i]?.toLowerCase() === 'connection') connection.push(flat[i + 1] ?? '');
  const drop = hopByHopNames(connection, keepUpgrade);
  const out: string[] = [];
  for (let i = 0; i < flat.length; i += 2) {
    const name = flat[i] ?? '';
    if (!drop.has(name.toLowerCase())) out.push(name, flat[i + 1] ?? '');
  }
  return out;
}

/** Headers as an object (lower-case names) without hop-by-hop ones. */
export function stripObject(headers: Headers): Headers {
  const drop = hopByHopNames(headers.connection);
  const out: Headers = {};
  for (const [name, value] of Object.entries(headers)) if (!drop.has(name.toLowerCase())) out[name] = value;
  return out;
}

/**
 * Whether a request body must go on chunked. Transfer-Encoding is hop-by-hop, so the client's is
 * dropped, but a body that came without a length still needs framing on the proxy's own hop: Node 22
 * and newer send the raw headers they are given as they are, so an unframed body would reach the
 * upstream as the start of another request (a smuggled one, if the client wrote it so).
 */
export function bodyNeedsChunks(headers: Headers): boolean {
  return headers['transfer-encoding'] !== undefined && headers['content-length'] === undefined;
}
