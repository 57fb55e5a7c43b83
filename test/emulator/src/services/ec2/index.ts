/**
 * Amazon EC2 (ec2Query): what templates, lookups and CDK's handlers use: the
 * zones (`Fn::GetAZs`), the VPC network `ec2.Vpc.fromLookup` describes, and
 * security groups with their rules (`restrictDefaultSecurityGroup`), and the
 * native calls that make VPC parts, security groups, Elastic IPs and NAT
 * gateways, answered from and kept as the EC2 resources Cloud Control keeps.
 */
import { AwsQueryCodec } from '../../core/protocols/aws-query';
import type { ServiceModule } from '../../core/service';
import { ec2Operations } from './service';
import { ec2Latency } from './latency';
import { describeOperations } from './describe';
import { securityGroupLifecycleOperations, securityGroupOperations } from './security-groups';
import { addressOperations } from './addresses';
import { Ec2Store } from './store';
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
    const store = new Ec2Store();
    const resources = () => platform.api<CloudControlResourcesApi>('cloudcontrol');
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
        ...securityGroupOperations(store, models),
        ...securityGroupLifecycleOperations(store, resources),
        ...vpcCreateOperations(resources),
        ...routeTableOperations(resources),
        ...addressOperations(store, resources),
      },
      store,
      latency: ec2Latency,
    };
  },
};
