/**
 * An error as an AWS service reports it: a code (`NoSuchBucket`,
 * `ValidationError`, ...), a message, an HTTP status and, for S3, extra
 * elements that go into the XML error body (`BucketName`, `Key`, ...).
 */
export class AwsError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
    /** Extra elements of the S3 `<Error>` body or extra JSON error members. */
    readonly extra: Record<string, string> = {},
    /** Extra response headers (e.g. `x-amz-delete-marker`). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = code;
  }

  /** `Sender` for 4xx, `Receiver` for 5xx, as the query and JSON protocols label faults. */
  get faultType(): 'Sender' | 'Receiver' {
    return this.status >= 500 ? 'Receiver' : 'Sender';
  }
}

/** True for an {@link AwsError}. */
export function isAwsError(value: unknown): value is AwsError {
  return value instanceof AwsError;
}
