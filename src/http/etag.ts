// ETags and If-Match: a write conditional on the version the client read.
import { AppError } from '../errors.js';

/** modificationDate strictly increases with every change of an object, so it names a version. */
export function etagOf(object: { modificationDate: number }): string {
  return `"${object.modificationDate}"`;
}

/** Throws 412 unless `ifMatch` is absent, `*`, or lists the object's current ETag. */
export function checkIfMatch(ifMatch: string | undefined, current: { modificationDate: number }): void {
  if (ifMatch === undefined || ifMatch.trim() === '*') return;
  const etag = etagOf(current);
  const listed = ifMatch.split(',').map((tag) => tag.trim());
  if (!listed.includes(etag)) {
    throw new AppError('PRECONDITION_FAILED', [
      { path: '', message: `If-Match ${ifMatch} does not match the current ETag ${etag}` },
    ]);
  }
}

/** True when `If-None-Match` holds `etag` (compared weakly, as RFC 9110 says) or `*`. */
export function ifNoneMatchHolds(ifNoneMatch: string | string[] | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const bare = etag.replace(/^W\//, '');
  const listed = (Array.isArray(ifNoneMatch) ? ifNoneMatch.join(',') : ifNoneMatch).split(',');
  return listed.some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === bare;
  });
}
