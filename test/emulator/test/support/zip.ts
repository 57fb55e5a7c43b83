/** Zip archives for tests, made by a real zip library (yazl), not by the emulator's own writer. */
// yazl ships no type declarations; the part the tests use:
interface YazlZipFile {
  addBuffer(data: Buffer, name: string, options?: { mtime?: Date; mode?: number }): void;
  end(): void;
  outputStream: NodeJS.ReadableStream;
}
const yazl = require('yazl') as { ZipFile: new () => YazlZipFile };

/** A zip of the given files (`name` → content). */
export function zipOf(files: Record<string, string | Buffer>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(files))
    zip.addBuffer(Buffer.isBuffer(content) ? content : Buffer.from(content), name, { mtime: new Date(0) });
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('error', reject);
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}
