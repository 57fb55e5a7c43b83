/**
 * AWS Key Management Service (awsJson1_1, `TrentService`): keys, aliases,
 * rotation, key policies, tags and envelope cryptography, shared with Cloud
 * Control's `AWS::KMS::Key` and `AWS::KMS::Alias`, and lent to the services
 * that encrypt with KMS (`platform.api<KmsApi>('kms')`).
 */
import { AwsJsonCodec } from '../../core/protocols/aws-json';
import type { ServiceModule } from '../../core/service';
import { kmsApi } from './api';
import { KeyManagement } from './key-management';
import { kmsLatency } from './latency';
import { AliasProvider, KeyProvider } from './resource';
import { KmsOperations } from './service';
import { KmsStore } from './store';

export type { KmsApi } from './api';

export const kms: ServiceModule = {
  name: 'kms',
  signingNames: ['kms'],
  create() {
    const store = new KmsStore();
    const keys = new KeyManagement(store);
    return {
      protocol: new AwsJsonCodec({
        version: '1.1',
        targetPrefix: 'TrentService',
        namespace: 'com.amazonaws.kms',
        model: () => require('@aws-sdk/client-kms') as Record<string, unknown>,
        faults: { 500: { code: 'KMSInternalException', status: 500 } },
      }),
      operations: new KmsOperations(keys).operations,
      latency: kmsLatency,
      store,
      resources: [new KeyProvider(keys), new AliasProvider(keys)],
      api: kmsApi(keys),
    };
  },
};
