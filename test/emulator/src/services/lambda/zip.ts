/**
 * Zip archives, as Lambda reads deployment packages and layers: the central
 * directory lists the entries; each is stored or deflated. Synchronous,
 * because Cloud Control's resource providers are; and a writer for the
 * packages Lambda makes itself (CloudFormation's inline `ZipFile`).
 */
import * as zlib from 'node:zlib';

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_ENTRY = 0x02014b50;
const LOCAL_ENTRY = 0x04034b50;

export interface ZipEntry {
  /** Path inside the archive, `/`-separated; directories end with `/`. */
  name: string;
  data: Buffer;
  /** Unix mode bits when the archive records them (`0o755` for an executable). */
  mode?: number;
}

/** Thrown for bytes that are not a readable zip archive. */
export class InvalidZipError extends Error {}

/** The entries of a zip archive (directories included, with empty data). */
export function readZip(archive: Buffer): ZipEntry[] {
  const end = findEndOfCentralDirectory(archive);
  const count = archive.readUInt16LE(end + 10);
  let offset = archive.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (offset + 46 > archive.length || archive.readUInt32LE(offset) !== CENTRAL_ENTRY)
      throw new InvalidZipError('corrupt central directory');
    const method = archive.readUInt16LE(offset + 10);
    const compressedSize = archive.readUInt32LE(offset + 20);
    const nameLength = archive.readUInt16LE(offset + 28);
    const extraLength = archive.readUInt16LE(offset + 30);
    const commentLength = archive.readUInt16LE(offset + 32);
    const externalAttributes = archive.readUInt32LE(offset + 38);
    const localOffset = archive.readUInt32LE(offset + 42);
    const name = archive.toString('utf8', offset + 46, offset + 46 + nameLength);
    offset += 46 + nameLength + extraLength + commentLength;
    if (localOffset + 30 > archive.length || archive.readUInt32LE(localOffset) !== LOCAL_ENTRY)
      throw new InvalidZipError(`corrupt entry ${name}`);
    const dataStart =
      localOffset + 30 + archive.readUInt16LE(localOffset + 26) + archive.readUInt16LE(localOffset + 28);
    const raw = archive.subarray(dataStart, dataStart + compressedSize);
    let data: Buffer;
    if (method === 0) data = Buffer.from(raw);
    else if (method === 8) {
      try {
        data = zlib.inflateRawSync(raw);
      } catch {
        throw new InvalidZipError(`entry ${name} cannot be inflated`);
      }
    } else throw new InvalidZipError(`entry ${name} uses unsupported compression method ${method}`);
    const mode = externalAttributes >>> 16;
    entries.push({ name, data, ...(mode ? { mode: mode & 0o7777 } : {}) });
  }
  return entries;
}

function findEndOfCentralDirectory(archive: Buffer): number {
  // The record is 22 bytes plus a comment of at most 65535 bytes, at the very end.
  const lowest = Math.max(0, archive.length - 22 - 0xffff);
  for (let i = archive.length - 22; i >= lowest; i--)
    if (archive.readUInt32LE(i) === END_OF_CENTRAL_DIRECTORY) return i;
  throw new InvalidZipError('no end of central directory record');
}

/** True when the bytes start like a zip archive (local entry or an empty archive). */
export function looksLikeZip(archive: Buffer): boolean {
  if (archive.length < 22) return false;
  const signature = archive.readUInt32LE(0);
  return signature === LOCAL_ENTRY || signature === END_OF_CENTRAL_DIRECTORY;
}

const CRC_TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

function crc32(data: Buffer): number {
  let crc = -1;
  for (let i = 0; i < data.length; i++) crc = CRC_TABLE[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

/**
 * A deflated zip of the given files, with a fixed timestamp so the same files
 * always make the same bytes (and so the same CodeSha256).
 */
export function writeZip(files: ReadonlyArray<{ name: string; data: Buffer; mode?: number }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  // 1980-01-01 00:00, the earliest DOS date.
  const dosTime = 0;
  const dosDate = (0 << 9) | (1 << 5) | 1;
  for (const file of files) {
    const name = Buffer.from(file.name, 'utf8');
    const compressed = zlib.deflateRawSync(file.data);
    const crc = crc32(file.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL_ENTRY, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8);
    local.writeUInt16LE(dosTime, 10);
    local.writeUInt16LE(dosDate, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(file.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, compressed);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(CENTRAL_ENTRY, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix, version 2.0
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(dosTime, 12);
    central.writeUInt16LE(dosDate, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(file.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((0o100000 | (file.mode ?? 0o644)) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += 30 + name.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END_OF_CENTRAL_DIRECTORY, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
