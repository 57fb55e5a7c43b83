/**
 * Secret values encrypted under the secret's KMS key through the emulator's
 * KMS (`alias/aws/secretsmanager` unless the secret names another key), with
 * the secret's ARN and version as encryption context. A key KMS refuses
 * surfaces as Secrets Manager reports it: EncryptionFailure when a value is
 * written, DecryptionFailure when it is read.
 */
import { AwsError } from '../../core/errors';
import type { Platform } from '../../core/service';
import type { KmsApi } from '../kms';

export const DEFAULT_SECRETS_KEY = 'alias/aws/secretsmanager';

export interface Scope {
  account: string;
  region: string;
}

export interface SecretCipher {
  /** Base64 ciphertext of `plaintext`; throws EncryptionFailure. */
  encrypt(
    scope: Scope,
    keyId: string | undefined,
    plaintext: Buffer,
    context: Record<string, string>,
  ): string;
  /** Throws DecryptionFailure when the key cannot decrypt now. */
  decrypt(scope: Scope, ciphertext: string, context: Record<string, string>): Buffer;
  /** Throws EncryptionFailure when the key cannot be used. */
  check(scope: Scope, keyId: string): void;
}

function failure(code: 'EncryptionFailure' | 'DecryptionFailure', err: unknown): AwsError {
  const what = code === 'EncryptionFailure' ? 'encrypt' : 'decrypt';
  const reason = err instanceof Error && err.message ? ` (${err.message})` : '';
  return new AwsError(
    code,
    `Secrets Manager can't ${what} the protected secret text using the provided KMS key. Check that the KMS key is available, enabled, and not in an invalid state.${reason}`,
    400,
  );
}

export function kmsSecretCipher(platform: Platform): SecretCipher {
  const kms = () => platform.api<KmsApi>('kms');
  return {
    encrypt(scope, keyId, plaintext, context) {
      try {
        return kms()
          .encrypt(scope, keyId ?? DEFAULT_SECRETS_KEY, plaintext, context)
          .blob.toString('base64');
      } catch (err) {
        throw failure('EncryptionFailure', err);
      }
    },
    decrypt(scope, ciphertext, context) {
      try {
        return kms().decrypt(scope, Buffer.from(ciphertext, 'base64'), context);
      } catch (err) {
        throw failure('DecryptionFailure', err);
      }
    },
    check(scope, keyId) {
      try {
        const key = kms().describe(scope, keyId);
        if (key.state !== 'Enabled') throw new Error(`${key.keyArn} is ${key.state}`);
      } catch (err) {
        throw failure('EncryptionFailure', err);
      }
    },
  };
}
