/**
 * What other services use KMS for (`platform.api<KmsApi>('kms')`): Parameter
 * Store's SecureString values and Secrets Manager's secrets are encrypted
 * under a KMS key, named any way KMS accepts (key id, key ARN, alias name,
 * alias ARN; `alias/aws/ssm` and `alias/aws/secretsmanager` are made on first
 * use). Errors are KMS's own AwsErrors; the calling service maps them to its
 * own codes.
 */
import type { KeyManagement, Scope } from './key-management';

export interface KmsApi {
  /** Encrypts `plaintext`; the blob names its key, so {@link decrypt} needs none. */
  encrypt(
    scope: Scope,
    keyId: string,
    plaintext: Buffer,
    context?: Record<string, string>,
  ): { keyId: string; keyArn: string; blob: Buffer };
  decrypt(scope: Scope, blob: Buffer, context?: Record<string, string>): Buffer;
  /** The key a KeyId names, and whether it can encrypt now. */
  describe(scope: Scope, keyId: string): { keyId: string; keyArn: string; state: string };
}

export function kmsApi(keys: KeyManagement): KmsApi {
  return {
    encrypt(scope, keyId, plaintext, context) {
      const { key, blob } = keys.envelope(scope, keyId, plaintext, context);
      return { keyId: key.keyId, keyArn: key.arn, blob };
    },
    decrypt(scope, blob, context) {
      return keys.decrypt(scope, blob, context).plaintext;
    },
    describe(scope, keyId) {
      const key = keys.key(scope, keyId, true);
      return { keyId: key.keyId, keyArn: key.arn, state: key.state };
    },
  };
}
