/**
 * What each KMS key spec allows: the key usages it can be created with and
 * the algorithms DescribeKey reports for a usage (KMS Developer Guide, "Key
 * spec reference").
 */

export const KEY_SPECS = [
  'SYMMETRIC_DEFAULT',
  'RSA_2048',
  'RSA_3072',
  'RSA_4096',
  'ECC_NIST_P256',
  'ECC_NIST_P384',
  'ECC_NIST_P521',
  'ECC_SECG_P256K1',
  'HMAC_224',
  'HMAC_256',
  'HMAC_384',
  'HMAC_512',
  'SM2',
  'ML_DSA_44',
  'ML_DSA_65',
  'ML_DSA_87',
] as const;

export const KEY_USAGES = ['ENCRYPT_DECRYPT', 'SIGN_VERIFY', 'GENERATE_VERIFY_MAC', 'KEY_AGREEMENT'] as const;

export const ORIGINS = ['AWS_KMS', 'EXTERNAL', 'AWS_CLOUDHSM', 'EXTERNAL_KEY_STORE'] as const;

/** Key usages a spec can be created with; the first is the spec's default. */
export function usagesOf(spec: string): readonly string[] {
  if (spec === 'SYMMETRIC_DEFAULT') return ['ENCRYPT_DECRYPT'];
  if (spec.startsWith('RSA_')) return ['ENCRYPT_DECRYPT', 'SIGN_VERIFY'];
  if (spec.startsWith('HMAC_')) return ['GENERATE_VERIFY_MAC'];
  if (spec.startsWith('ECC_NIST_')) return ['SIGN_VERIFY', 'KEY_AGREEMENT'];
  if (spec === 'ECC_SECG_P256K1' || spec.startsWith('ML_DSA_')) return ['SIGN_VERIFY'];
  if (spec === 'SM2') return ['ENCRYPT_DECRYPT', 'SIGN_VERIFY', 'KEY_AGREEMENT'];
  return [];
}

/** The algorithm lists DescribeKey reports for a key of this spec and usage. */
export function algorithmsOf(
  spec: string,
  usage: string,
): {
  EncryptionAlgorithms?: string[];
  SigningAlgorithms?: string[];
  MacAlgorithms?: string[];
  KeyAgreementAlgorithms?: string[];
} {
  if (usage === 'ENCRYPT_DECRYPT') {
    if (spec === 'SYMMETRIC_DEFAULT') return { EncryptionAlgorithms: ['SYMMETRIC_DEFAULT'] };
    if (spec === 'SM2') return { EncryptionAlgorithms: ['SM2PKE'] };
    return { EncryptionAlgorithms: ['RSAES_OAEP_SHA_1', 'RSAES_OAEP_SHA_256'] };
  }
  if (usage === 'SIGN_VERIFY') {
    if (spec.startsWith('RSA_')) {
      return {
        SigningAlgorithms: [
          'RSASSA_PKCS1_V1_5_SHA_256',
          'RSASSA_PKCS1_V1_5_SHA_384',
          'RSASSA_PKCS1_V1_5_SHA_512',
          'RSASSA_PSS_SHA_256',
          'RSASSA_PSS_SHA_384',
          'RSASSA_PSS_SHA_512',
        ],
      };
    }
    if (spec === 'ECC_NIST_P256' || spec === 'ECC_SECG_P256K1')
      return { SigningAlgorithms: ['ECDSA_SHA_256'] };
    if (spec === 'ECC_NIST_P384') return { SigningAlgorithms: ['ECDSA_SHA_384'] };
    if (spec === 'ECC_NIST_P521') return { SigningAlgorithms: ['ECDSA_SHA_512'] };
    if (spec === 'SM2') return { SigningAlgorithms: ['SM2DSA'] };
    return { SigningAlgorithms: ['ML_DSA_SHAKE_256'] };
  }
  if (usage === 'GENERATE_VERIFY_MAC') return { MacAlgorithms: [`HMAC_SHA_${spec.slice('HMAC_'.length)}`] };
  return { KeyAgreementAlgorithms: ['ECDH'] };
}

/** Only symmetric encryption keys with key material from KMS can rotate automatically. */
export function supportsAutomaticRotation(spec: string, origin: string): boolean {
  return spec === 'SYMMETRIC_DEFAULT' && origin === 'AWS_KMS';
}
