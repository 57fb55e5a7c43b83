/**
 * SecureString values, encrypted under a KMS key through the emulator's KMS
 * (`alias/aws/ssm` unless the parameter names another key), with the
 * parameter's ARN as encryption context as Parameter Store uses it. Read
 * without decryption, a SecureString value is the base64 of that ciphertext.
 */
import { AwsError } from '../../core/errors';
import type { Platform } from '../../core/service';
import type { KmsApi } from '../kms';

export const DEFAULT_SSM_KEY = 'alias/aws/ssm';

export interface SecureStringCipher {
  encrypt(scope: { account: string; region: string }, keyId: string, arn: string, plaintext: string): string;
  decrypt(scope: { account: string; region: string }, arn: string, ciphertext: string): string;
}

/** A KMS refusal as Parameter Store reports it. */
function invalidKey(err: unknown): AwsError {
  const message = err instanceof Error && err.message ? err.message : 'The query key ID is not valid.';
  return new AwsError('InvalidKeyId', message, 400);
}

export function kmsSecureStrings(platform: Platform): SecureStringCipher {
  const kms = () => platform.api<KmsApi>('kms');
  return {
    encrypt(scope, keyId, arn, plaintext) {
      try {
        return kms()
          .encrypt(scope, keyId, Buffer.from(plaintext), { PARAMETER_ARN: arn })
          .blob.toString('base64');
      } catch (err) {
        throw invalidKey(err);
      }
    },
    decrypt(scope, arn, ciphertext) {
      try {
        return kms()
          .decrypt(scope, Buffer.from(ciphertext, 'base64'), { PARAMETER_ARN: arn })
          .toString('utf8');
      } catch (err) {
        throw invalidKey(err);
      }
    },
  };
}
