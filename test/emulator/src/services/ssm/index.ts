/** AWS Systems Manager Parameter Store (awsJson1_1), shared with Cloud Control's `AWS::SSM::Parameter`. */
import { badRequest, body } from '../../control/routes';
import { jsonResponse } from '../../core/http';
import { AwsJsonCodec } from '../../core/protocols/aws-json';
import type { ServiceModule } from '../../core/service';
import { ParameterProvider } from './resource';
import { kmsSecureStrings } from './secure-strings';
import { SsmOperations } from './service';
import { SsmStore, type ParameterType } from './store';
import { ssmLatency } from './latency';

export const ssm: ServiceModule = {
  name: 'ssm',
  signingNames: ['ssm'],
  create(platform) {
    const store = new SsmStore(kmsSecureStrings(platform));
    return {
      protocol: new AwsJsonCodec({
        version: '1.1',
        targetPrefix: 'AmazonSSM',
        namespace: 'com.amazonaws.ssm',
        model: () => require('@aws-sdk/client-ssm') as Record<string, unknown>,
        faults: { 500: { code: 'InternalServerError', status: 500 } },
      }),
      operations: new SsmOperations(store).operations,
      latency: ssmLatency,
      store,
      resources: [new ParameterProvider(store)],
      control(router) {
        // Reserved names (e.g. /aws/service/...) cannot be written through PutParameter: seed them here.
        router.add('POST', /^\/_emulator\/ssm\/parameters$/, (req) => {
          const seed = body(req) as {
            name?: unknown;
            value?: unknown;
            type?: unknown;
            account?: unknown;
            region?: unknown;
          };
          if (typeof seed.name !== 'string' || typeof seed.value !== 'string')
            throw badRequest('a parameter needs "name" and "value" (strings)');
          const parameter = store.put(
            typeof seed.account === 'string' ? seed.account : platform.accounts.defaultAccount,
            typeof seed.region === 'string' ? seed.region : 'us-east-1',
            {
              name: seed.name,
              value: seed.value,
              type: (typeof seed.type === 'string' ? seed.type : 'String') as ParameterType,
              overwrite: true,
              user: 'emulator-control',
              allowReserved: true,
            },
          );
          platform.changed();
          return jsonResponse(201, { name: parameter.name, version: parameter.versions.length });
        });
      },
    };
  },
};
