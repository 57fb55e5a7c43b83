/** AWS Secrets Manager (awsJson1_1), shared with Cloud Control's `AWS::SecretsManager::Secret` and `::RotationSchedule`. */
import { AwsJsonCodec } from '../../core/protocols/aws-json';
import type { ServiceModule } from '../../core/service';
import { SecretProvider } from './resource';
import { SecretsManagerOperations } from './service';
import { SecretsStore } from './store';
import { secretsManagerLatency } from './latency';
import { DELETE_LAG, SecretsManagement } from './secrets';
import { kmsSecretCipher } from './secret-cipher';
import { SecretRotation } from './rotation';
import { RotationScheduleProvider } from './rotation-schedule';
import { lambdaSyncInvoker } from '../../core/lambda-invoke';

export const secretsManager: ServiceModule = {
  name: 'secretsmanager',
  signingNames: ['secretsmanager'],
  create(platform) {
    const store = new SecretsStore();
    platform.consistency.register({
      name: DELETE_LAG,
      description:
        'A force-deleted secret\'s name can stay taken for a short while: "Secrets Manager performs the permanent secret deletion at the end of the waiting period as a background task" and a CreateSecret of the same name right after can fail, so "use appropriate back off and retry logic" (DeleteSecret API reference).',
      defaultDelayMs: 2000,
    });
    const secrets = new SecretsManagement(store, kmsSecretCipher(platform), platform.consistency);
    const rotation = new SecretRotation(secrets, () => lambdaSyncInvoker(platform));
    return {
      protocol: new AwsJsonCodec({
        version: '1.1',
        targetPrefix: 'secretsmanager',
        namespace: 'com.amazonaws.secretsmanager',
        model: () => require('@aws-sdk/client-secrets-manager') as Record<string, unknown>,
        faults: { 500: { code: 'InternalServiceError', status: 500 } },
      }),
      operations: {
        ...new SecretsManagerOperations(secrets).operations,
        ...rotation.operations,
      },
      latency: secretsManagerLatency,
      store,
      resources: [new SecretProvider(secrets), new RotationScheduleProvider(secrets, rotation)],
    };
  },
};
