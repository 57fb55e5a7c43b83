/**
 * Deployment packages: Lambda copies the zip when a function (or layer
 * version) is created or its code updated — from the request (`ZipFile`) or
 * from S3 (read from the emulator's own S3 store) — checks it is a zip and
 * keeps it by its SHA-256, which the API reports as `CodeSha256`.
 */
import { createHash } from 'node:crypto';
import { AwsError } from '../../core/errors';
import type { Platform } from '../../core/service';
import type { S3Store } from '../s3/store';
import type { LambdaStore } from './store';
import { InvalidZipError, looksLikeZip, readZip } from './zip';

/** Where a package comes from, as CreateFunction's `Code` or UpdateFunctionCode's input names it. */
export interface CodeSource {
  ZipFile?: Uint8Array;
  S3Bucket?: string;
  S3Key?: string;
  S3ObjectVersion?: string;
  ImageUri?: string;
}

export interface StoredCode {
  CodeSha256: string;
  CodeSize: number;
}

/** The documented limits of a .zip deployment package. */
const MAX_DIRECT_UPLOAD = 50 * 1024 * 1024;
const MAX_UNZIPPED = 262_144_000;

export function codeSha256(zip: Buffer): string {
  return createHash('sha256').update(zip).digest('base64');
}

export class CodeRepository {
  constructor(
    private readonly store: LambdaStore,
    private readonly platform: Platform,
  ) {}

  /** Reads, checks and keeps a package; `region` is the function's (S3 buckets must be there). */
  take(source: CodeSource, region: string): StoredCode {
    const zip = this.fetch(source, region);
    checkZip(zip);
    const sha = codeSha256(zip);
    this.store.code.set(sha, zip);
    return { CodeSha256: sha, CodeSize: zip.length };
  }

  /** The zip bytes of a kept package. */
  get(sha: string): Buffer | undefined {
    return this.store.code.get(sha);
  }

  private fetch(source: CodeSource, region: string): Buffer {
    if (source.ZipFile !== undefined) {
      if (source.S3Bucket || source.S3Key)
        throw new AwsError(
          'InvalidParameterValueException',
          'Please provide a source for function code: either S3 location or zip file, not both.',
        );
      const zip = Buffer.from(source.ZipFile);
      if (zip.length > MAX_DIRECT_UPLOAD)
        throw new AwsError(
          'RequestTooLargeException',
          'Request must be smaller than 69905067 bytes for the CreateFunction operation',
        );
      return zip;
    }
    if (source.S3Bucket && source.S3Key) return this.fromS3(source, region);
    if (source.S3Bucket || source.S3Key)
      throw new AwsError(
        'InvalidParameterValueException',
        'Please specify both S3Bucket and S3Key to deploy from S3.',
      );
    throw new AwsError('InvalidParameterValueException', 'Please provide a source for function code.');
  }

  private fromS3(source: CodeSource, region: string): Buffer {
    const s3 = this.platform.api<S3Store>('s3');
    const failure = (code: string, message: string) =>
      new AwsError(
        'InvalidParameterValueException',
        `Error occurred while GetObject. S3 Error Code: ${code}. S3 Error Message: ${message}`,
      );
    const bucket = s3.buckets.get(source.S3Bucket!);
    if (!bucket) throw failure('NoSuchBucket', 'The specified bucket does not exist');
    if (bucket.region !== region)
      throw failure(
        'PermanentRedirect',
        `The bucket is in this region: ${bucket.region}. Please use this region to retry the request`,
      );
    const versions = bucket.objects.get(source.S3Key!) ?? [];
    if (source.S3ObjectVersion !== undefined) {
      const version = versions.find((v) => v.versionId === source.S3ObjectVersion && !v.deleteMarker);
      if (!version) throw failure('NoSuchVersion', 'The specified version does not exist.');
      return version.body;
    }
    const current = versions[0];
    if (!current || current.deleteMarker) throw failure('NoSuchKey', 'The specified key does not exist.');
    return current.body;
  }
}

/** A package Lambda accepts: a readable zip whose files fit the unzipped limit. */
function checkZip(zip: Buffer): void {
  const unzipFailure = () =>
    new AwsError(
      'InvalidParameterValueException',
      'Could not unzip uploaded file. Please check your file, then try to upload again.',
    );
  if (!looksLikeZip(zip)) throw unzipFailure();
  let total = 0;
  try {
    for (const entry of readZip(zip)) total += entry.data.length;
  } catch (err) {
    if (err instanceof InvalidZipError) throw unzipFailure();
    throw err;
  }
  if (total > MAX_UNZIPPED)
    throw new AwsError(
      'InvalidParameterValueException',
      `Unzipped size must be smaller than ${MAX_UNZIPPED} bytes`,
    );
}
