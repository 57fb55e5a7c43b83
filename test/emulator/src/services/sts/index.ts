/** AWS STS (awsQuery): who is calling, and temporary credentials for roles. */
import { AwsError } from '../../core/errors';
import { AwsQueryCodec } from '../../core/protocols/aws-query';
import type { ServiceModule } from '../../core/service';
import { StsOperations } from './service';
import { stsLatency } from './latency';

export const sts: ServiceModule = {
  name: 'sts',
  signingNames: ['sts'],
  create(platform) {
    return {
      protocol: new AwsQueryCodec({
        version: '2011-06-15',
        xmlns: 'https://sts.amazonaws.com/doc/2011-06-15/',
        model: () => require('@aws-sdk/client-sts') as Record<string, unknown>,
        unknownOperation: (action) =>
          new AwsError('InvalidAction', `Could not find operation ${action} for version 2011-06-15`, 400),
      }),
      operations: new StsOperations(platform.accounts).operations,
      latency: stsLatency,
    };
  },
};
