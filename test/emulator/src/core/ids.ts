/** Identifiers shaped like the ones AWS hands out. */
import { randomBytes, randomUUID } from 'node:crypto';

const UPPER_ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const URL_SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._';

function fromAlphabet(alphabet: string, length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[bytes[i]! % alphabet.length];
  return out;
}

export function requestId(): string {
  return randomUUID();
}

/** S3's 16-character request id (x-amz-request-id). */
export function s3RequestId(): string {
  return randomBytes(8).toString('hex').toUpperCase();
}

/** An S3 object version id (32 URL-safe characters). */
export function versionId(): string {
  return fromAlphabet(URL_SAFE, 32);
}

/** A random upper-case alphanumeric string, as in `AKIA...` keys and generated names. */
export function upperAlnum(length: number): string {
  return fromAlphabet(UPPER_ALNUM, length);
}

export function secretKey(): string {
  return randomBytes(30).toString('base64').slice(0, 40);
}

export function uuid(): string {
  return randomUUID();
}

/** A random lower-case alphanumeric string, as in generated ids CloudFormation lower-cases. */
export function lowerAlnum(length: number): string {
  return fromAlphabet(UPPER_ALNUM, length).toLowerCase();
}
