/**
 * An error as an AWS service reports it: a code (`NoSuchBucket`,
 * `ValidationError`, ...), a message, an HTTP status and extra members that go
 * into the error body (`BucketName`, `Key`, ...).
 *
 * Model-driven codecs fill the status from the service model's error shape
 * when the thrower gives none (`httpError` / `awsQueryError` traits).
 */
export class AwsError extends Error {
  /** True when the thrower chose the status; false when it is the 400 default. */
  readonly explicitStatus: boolean;
  readonly status: number;

  constructor(
    readonly code: string,
    message: string,
    status?: number,
    /** Extra elements of the S3 `<Error>` body or extra members of the error shape. */
    readonly extra: Record<string, string> = {},
    /** Extra response headers (e.g. `x-amz-delete-marker`). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = code;
    this.explicitStatus = status !== undefined;
    this.status = status ?? 400;
  }

  /** `Sender` for 4xx, `Receiver` for 5xx, as the query and JSON protocols label faults. */
  get faultType(): 'Sender' | 'Receiver' {
    return this.status >= 500 ? 'Receiver' : 'Sender';
  }

  /** The same error with another status (a codec resolving it from the model). */
  withStatus(status: number): AwsError {
    if (status === this.status) return this;
    return new AwsError(this.code, this.message, status, this.extra, this.headers);
  }
}

/** True for an {@link AwsError}. */
export function isAwsError(value: unknown): value is AwsError {
  return value instanceof AwsError;
}

/** Any thrown value as an AwsError (an unexpected one is a 500 InternalFailure). */
export function asAwsError(err: unknown): AwsError {
  if (isAwsError(err)) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new AwsError('InternalFailure', `emulator internal error: ${message}`, 500);
}
