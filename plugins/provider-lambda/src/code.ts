/**
 * A CloudFormation `Code` (or a layer's `Content`) as the Lambda API takes it:
 * an S3 location passes through; inline source (`ZipFile`) is zipped as
 * CloudFormation does it — one file named `index.py` for Python runtimes,
 * `index.js` otherwise (CommonJS) — with a fixed timestamp, so the same
 * source always makes the same package (and CodeSha256).
 */
import type { FunctionCode } from '@aws-sdk/client-lambda';

interface YazlZipFile {
  addBuffer(data: Buffer, name: string, options?: { mtime?: Date; mode?: number }): void;
  end(): void;
  outputStream: NodeJS.ReadableStream;
}

/** The file CloudFormation puts inline code in. */
export function inlineFileName(runtime: unknown): string {
  return typeof runtime === 'string' && runtime.startsWith('python') ? 'index.py' : 'index.js';
}

/** A zip holding one file. */
export function zipInline(fileName: string, source: string): Promise<Buffer> {
  // yazl is loaded only when inline code is zipped.
  const yazl = require('yazl') as { ZipFile: new () => YazlZipFile };
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from(source, 'utf8'), fileName, {
    mtime: new Date('1980-01-01T00:00:00Z'),
    mode: 0o100644,
  });
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('error', reject);
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

type CodeProperty = {
  S3Bucket?: string;
  S3Key?: string;
  S3ObjectVersion?: string;
  ZipFile?: string;
  ImageUri?: string;
  SourceKMSKeyArn?: string;
};

/** The Code member of CreateFunction (also the code members of UpdateFunctionCode). */
export async function functionCode(code: unknown, runtime: unknown): Promise<FunctionCode> {
  const c = (code ?? {}) as CodeProperty;
  if (typeof c.ZipFile === 'string') return { ZipFile: await zipInline(inlineFileName(runtime), c.ZipFile) };
  const out: FunctionCode = {};
  if (c.S3Bucket !== undefined) out.S3Bucket = c.S3Bucket;
  if (c.S3Key !== undefined) out.S3Key = c.S3Key;
  if (c.S3ObjectVersion !== undefined) out.S3ObjectVersion = c.S3ObjectVersion;
  if (c.ImageUri !== undefined) out.ImageUri = c.ImageUri;
  if (c.SourceKMSKeyArn !== undefined) out.SourceKMSKeyArn = c.SourceKMSKeyArn;
  return out;
}
