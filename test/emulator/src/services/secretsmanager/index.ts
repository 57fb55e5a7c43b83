/** AWS Secrets Manager (awsJson1_1), shared with Cloud Control's `AWS::SecretsManager::Secret`. */
import { AwsJsonCodec } from '../../core/protocols/aws-json';
import type { ServiceModule } from '../../core/service';
import { SecretProvider } from './resource';
import { SecretsManagerOperations } from './service';
import { SecretsStore } from './store';
import { secretsManagerLatency } from './latency';

export const secretsManager: ServiceModule = {
  name: 'secretsmanager',
  signingNames: ['secretsmanager'],
  create() {
    const store = new SecretsStore();
    return {
      protocol: new AwsJsonCodec({
        version: '1.1',
        targetPrefix: 'secretsmanager',
        namespace: 'com.amazonaws.secretsmanager',
        model: () => require('@aws-sdk/client-secrets-manager') as Record<string, unknown>,
        faults: { 500: { code: 'InternalServiceError', status: 500 } },
      }),
      operations: new SecretsManagerOperations(store).operations,
      latency: secretsManagerLatency,
      store,
      resources: [new SecretProvider(store)],
    };
  },
};
