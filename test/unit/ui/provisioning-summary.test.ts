import { RouteTally } from '../../../src/engine/route-tally';
import type { RoutedProvider } from '../../../src/engine/provisioner';
import { renderProvisioningSummary } from '../../../src/ui/provisioning-summary';

const byPack = (packName: string) => ({ decision: { route: 'sdk', packName } }) as unknown as RoutedProvider;
const byCloudControl = { decision: { route: 'cc-api', reason: 'x' } } as unknown as RoutedProvider;

describe('the deploy provisioning summary', () => {
  it('counts each resource once, by the provider of its last operation', () => {
    const tally = new RouteTally();
    tally.record('A', 'Queue', 'AWS::SQS::Queue', byPack('@cdkd/provider-sqs'));
    tally.record('A', 'Queue', 'AWS::SQS::Queue', byPack('@cdkd/provider-sqs'));
    tally.record('B', 'Queue', 'AWS::SQS::Queue', byPack('@cdkd/provider-sqs'));
    tally.record('A', 'Param', 'AWS::SSM::Parameter', byCloudControl);
    tally.record('A', 'Param2', 'AWS::SSM::Parameter', byCloudControl);
    tally.record('A', 'Vpc', 'AWS::EC2::VPC', byCloudControl);
    expect(tally.routes()).toEqual({
      sdk: { '@cdkd/provider-sqs': 2 },
      cloudControl: { 'AWS::SSM::Parameter': 2, 'AWS::EC2::VPC': 1 },
    });
    expect(
      renderProvisioningSummary(tally.routes(), { registered: () => false, cloudControlOnly: false }),
    ).toEqual([
      'Provisioned 5 resources: 2 by SDK packs (@cdkd/provider-sqs 2), 3 by Cloud Control.',
      '@cdkd/provider-ssm would provision 2 of them faster (AWS::SSM::Parameter): cdkd plugins install @cdkd/provider-ssm',
    ]);
  });

  it('names no pack for a type a pack registers (its properties sent it to Cloud Control), nor under --cloud-control-only', () => {
    const routes = { sdk: {}, cloudControl: { 'AWS::SSM::Parameter': 1 } };
    expect(renderProvisioningSummary(routes, { registered: () => true, cloudControlOnly: false })).toEqual([
      'Provisioned 1 resource: 0 by SDK packs, 1 by Cloud Control.',
    ]);
    expect(renderProvisioningSummary(routes, { registered: () => false, cloudControlOnly: true })).toEqual([
      'Provisioned 1 resource: 0 by SDK packs, 1 by Cloud Control (--cloud-control-only).',
    ]);
  });

  it('says nothing when nothing was provisioned', () => {
    expect(
      renderProvisioningSummary(
        { sdk: {}, cloudControl: {} },
        { registered: () => false, cloudControlOnly: false },
      ),
    ).toEqual([]);
  });
});
