/** AWS CloudFormation (awsQuery), read-only over stacks seeded through the control API. */
import { body, notFound } from '../../control/routes';
import { jsonResponse } from '../../core/http';
import { AwsQueryCodec } from '../../core/protocols/aws-query';
import type { ServiceModule } from '../../core/service';
import { CloudFormationOperations } from './service';
import { CloudFormationStore, type StackSeed } from './store';
import { cloudFormationLatency } from './latency';

export type { SeededStack, StackOutput, StackSeed } from './store';

export const cloudFormation: ServiceModule = {
  name: 'cloudformation',
  signingNames: ['cloudformation'],
  create(platform) {
    const store = new CloudFormationStore();
    return {
      protocol: new AwsQueryCodec({
        version: '2010-05-15',
        xmlns: 'http://cloudformation.amazonaws.com/doc/2010-05-15/',
        model: () => require('@aws-sdk/client-cloudformation') as Record<string, unknown>,
      }),
      operations: new CloudFormationOperations(store).operations,
      latency: cloudFormationLatency,
      store,
      control(router) {
        router.add('GET', /^\/_emulator\/cloudformation\/stacks$/, () => jsonResponse(200, store.stacks));
        router.add('POST', /^\/_emulator\/cloudformation\/stacks$/, (req) => {
          const stack = store.seed(body(req) as StackSeed, platform.accounts.defaultAccount);
          platform.changed();
          return jsonResponse(201, stack);
        });
        router.add('DELETE', /^\/_emulator\/cloudformation\/stacks\/([^/]+)$/, (req, [name]) => {
          const account = req.query.get('account') ?? platform.accounts.defaultAccount;
          const region = req.query.get('region') ?? 'us-east-1';
          if (!store.remove(name!, account, region))
            throw notFound(`no seeded stack ${name} in ${account}/${region}`);
          platform.changed();
          return jsonResponse(200, { deleted: name });
        });
      },
    };
  },
};
