/** Conditional requests: ETag comparison and the read preconditions (412 / 304). */
import { AwsError } from '../../core/errors';
import { header, type EmulatorRequest } from '../../core/http';
import { s3Errors } from './errors';
import type { ObjectVersion } from './store';

/** `If-Match`-style comparison: `*` or one of a comma-separated list of (quoted or bare) ETags. */
export function etagMatches(condition: string, etag: string): boolean {
  const bare = etag.replace(/"/g, '');
  return condition.split(',').some((c) => {
    const t = c.trim().replace(/^W\//, '').replace(/"/g, '');
    return t === '*' || t === bare;
  });
}

export function checkReadPreconditions(req: EmulatorRequest, object: ObjectVersion): void {
  const ifMatch = header(req, 'if-match');
  const ifNoneMatch = header(req, 'if-none-match');
  const ifModifiedSince = header(req, 'if-modified-since');
  const ifUnmodifiedSince = header(req, 'if-unmodified-since');
  const modified = Math.floor(object.lastModified.getTime() / 1000) * 1000;
  if (ifMatch !== undefined && !etagMatches(ifMatch, object.etag))
    throw s3Errors.preconditionFailed('If-Match');
  if (ifMatch === undefined && ifUnmodifiedSince) {
    const t = Date.parse(ifUnmodifiedSince);
    if (!Number.isNaN(t) && modified > t) throw s3Errors.preconditionFailed('If-Unmodified-Since');
  }
  const notModified = () =>
    new AwsError(
      'NotModified',
      'Not Modified',
      304,
      {},
      { etag: object.etag, 'last-modified': object.lastModified.toUTCString() },
    );
  if (ifNoneMatch !== undefined && etagMatches(ifNoneMatch, object.etag)) throw notModified();
  if (ifNoneMatch === undefined && ifModifiedSince) {
    const t = Date.parse(ifModifiedSince);
    if (!Number.isNaN(t) && modified <= t) throw notModified();
  }
}
