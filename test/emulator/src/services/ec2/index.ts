/** Amazon EC2 (ec2Query): only what templates and lookups read, for now DescribeAvailabilityZones. */
import { AwsQueryCodec } from '../../core/protocols/aws-query';
import type { ServiceModule } from '../../core/service';
import { ec2Operations } from './service';
import { ec2Latency } from './latency';

export const ec2: ServiceModule = {
  name: 'ec2',
  signingNames: ['ec2'],
  create() {
    return {
      protocol: new AwsQueryCodec({
        version: '2016-11-15',
        xmlns: 'http://ec2.amazonaws.com/doc/2016-11-15/',
        model: () => require('@aws-sdk/client-ec2') as Record<string, unknown>,
        ec2: true,
      }),
      operations: ec2Operations,
      latency: ec2Latency,
    };
  },
};
