/**
 * Amazon EC2 (ec2Query): what templates, lookups and CDK's handlers use: the
 * zones (`Fn::GetAZs`), the VPC network `ec2.Vpc.fromLookup` describes, and
 * security groups with their rules (`restrictDefaultSecurityGroup`), answered
 * from the EC2 resources Cloud Control keeps.
 */
import { AwsQueryCodec } from '../../core/protocols/aws-query';
import type { ServiceModule } from '../../core/service';
import { ec2Operations } from './service';
import { ec2Latency } from './latency';
import { describeOperations } from './describe';
import { SecurityGroupStore, securityGroupOperations } from './security-groups';
import { imageOperations } from './images';
import { vpcCreateOperations } from './vpc-create';
import { routeTableOperations } from './route-tables';
import type { CloudControlResourcesApi } from '../cloudcontrol/resources-api';

export const ec2: ServiceModule = {
  name: 'ec2',
  signingNames: ['ec2'],
  create(platform) {
    const models = (account: string, region: string, typeName: string) =>
      platform.api<CloudControlResourcesApi>('cloudcontrol').models(account, region, typeName);
    const securityGroups = new SecurityGroupStore();
    return {
      protocol: new AwsQueryCodec({
        version: '2016-11-15',
        xmlns: 'http://ec2.amazonaws.com/doc/2016-11-15/',
        model: () => require('@aws-sdk/client-ec2') as Record<string, unknown>,
        ec2: true,
      }),
      operations: {
        ...ec2Operations,
        ...imageOperations,
        ...describeOperations(models),
        ...securityGroupOperations(securityGroups, models),
        ...vpcCreateOperations(() => platform.api<CloudControlResourcesApi>('cloudcontrol')),
        ...routeTableOperations(() => platform.api<CloudControlResourcesApi>('cloudcontrol')),
      },
      store: securityGroups,
      latency: ec2Latency,
    };
  },
};
