/**
 * The emulator's ciphertext: AES-256-GCM under the key's own material, with
 * the encryption context as additional data. Like KMS's, a blob names the key
 * that made it, so Decrypt needs no KeyId for a symmetric key, and a changed
 * context or a tampered byte fails as InvalidCiphertextException.
 *
 *   0x01 | key id length (1) | key id (ASCII) | iv (12) | tag (16) | ciphertext
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { AwsError } from '../../core/errors';

const VERSION = 0x01;

/** Encryption context as canonical bytes (sorted keys), so member order does not matter. */
function contextBytes(context: Record<string, string> | undefined): Buffer {
  const entries = Object.entries(context ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Buffer.from(JSON.stringify(entries));
}

export function seal(
  keyId: string,
  material: string,
  plaintext: Buffer,
  context?: Record<string, string>,
): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(material, 'base64'), iv);
  cipher.setAAD(contextBytes(context));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  const id = Buffer.from(keyId, 'ascii');
  return Buffer.concat([Buffer.from([VERSION, id.length]), id, iv, cipher.getAuthTag(), body]);
}

const invalidCiphertext = () => new AwsError('InvalidCiphertextException', '');

/** The key id a ciphertext blob names; InvalidCiphertextException for anything else. */
export function sealedKeyId(blob: Buffer): string {
  if (blob.length < 2 || blob[0] !== VERSION || blob.length < 2 + blob[1]! + 28) throw invalidCiphertext();
  return blob.subarray(2, 2 + blob[1]!).toString('ascii');
}

export function open(blob: Buffer, material: string, context?: Record<string, string>): Buffer {
  const start = 2 + blob[1]!;
  const iv = blob.subarray(start, start + 12);
  const tag = blob.subarray(start + 12, start + 28);
  try {
    const decipher = createDecipheriv('aes-256-gcm', Buffer.from(material, 'base64'), iv);
    decipher.setAAD(contextBytes(context));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(blob.subarray(start + 28)), decipher.final()]);
  } catch {
    throw invalidCiphertext();
  }
}
