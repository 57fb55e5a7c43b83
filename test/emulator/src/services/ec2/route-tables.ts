/**
 * EC2's native route-table calls: CreateRouteTable / DeleteRouteTable,
 * CreateRoute / DeleteRoute, AssociateRouteTable / DisassociateRouteTable,
 * with the EC2 API reference's errors. Like vpc-create.ts they keep what they
 * make as Cloud Control's records (AWS::EC2::RouteTable, ::Route,
 * ::SubnetRouteTableAssociation), which DescribeRouteTables already reads.
 */
import { AwsError } from '../../core/errors';
import type { CallContext, Operations } from '../../core/service';
import type { CloudControlResourcesApi } from '../cloudcontrol/resources-api';
import type { Tag } from './filters';
import { network, ROUTE_TARGETS } from './network';

type Input = Record<string, unknown> & {
  DryRun?: boolean;
  TagSpecifications?: Array<{ ResourceType?: string; Tags?: Tag[] }>;
};

const fail = (code: string, message: string) => new AwsError(code, message, 400);

function guard(input: Input, name: string): string {
  const value = input[name];
  if (typeof value !== 'string' || !value)
    throw fail('MissingParameter', `The request must contain the parameter ${name}`);
  return value;
}

function dryRun(input: Input): void {
  if (input.DryRun)
    throw new AwsError('DryRunOperation', 'Request would have succeeded, but DryRun flag is set.', 412);
}

export function routeTableOperations(resources: () => CloudControlResourcesApi): Operations {
  const models = (ctx: CallContext, type: string) => resources().models(ctx.account, ctx.region, type);
  const here = (ctx: CallContext) => network(ctx.account, ctx.region, (type) => models(ctx, type));
  /** A route table the app made (a VPC's main table is EC2's own and cannot be changed here). */
  const tableOrFail = (ctx: CallContext, id: string) => {
    const table = models(ctx, 'AWS::EC2::RouteTable').find((t) => t.RouteTableId === id);
    if (!table) {
      if (here(ctx).routeTables.some((t) => t.RouteTableId === id)) return undefined;
      throw fail('InvalidRouteTableID.NotFound', `The routeTable ID '${id}' does not exist`);
    }
    return table;
  };
  const routesOf = (ctx: CallContext, tableId: string) =>
    models(ctx, 'AWS::EC2::Route').filter((r) => r.RouteTableId === tableId);

  return {
    CreateRouteTable: (ctx, input: Input) => {
      const vpcId = guard(input, 'VpcId');
      if (!here(ctx).vpcs.some((v) => v.VpcId === vpcId))
        throw fail('InvalidVpcID.NotFound', `The vpc ID '${vpcId}' does not exist`);
      const tags: Tag[] = [];
      for (const spec of input.TagSpecifications ?? []) {
        if (spec.ResourceType !== 'route-table')
          throw fail(
            'InvalidParameterValue',
            `'${spec.ResourceType ?? ''}' is not a valid taggable resource type for this operation.`,
          );
        tags.push(...(spec.Tags ?? []));
      }
      dryRun(input);
      const { identifier } = resources().create(ctx.account, ctx.region, 'AWS::EC2::RouteTable', {
        VpcId: vpcId,
        ...(tags.length ? { Tags: tags } : {}),
      });
      return { RouteTable: here(ctx).routeTables.find((t) => t.RouteTableId === identifier) };
    },

    DeleteRouteTable: (ctx, input: Input) => {
      const id = guard(input, 'RouteTableId');
      const table = tableOrFail(ctx, id);
      if (!table)
        throw fail('DependencyViolation', `The routeTable '${id}' has dependencies and cannot be deleted.`);
      if (models(ctx, 'AWS::EC2::SubnetRouteTableAssociation').some((a) => a.RouteTableId === id))
        throw fail('DependencyViolation', `The routeTable '${id}' has dependencies and cannot be deleted.`);
      dryRun(input);
      // Its routes go with it, as in EC2.
      for (const r of routesOf(ctx, id))
        resources().remove(ctx.account, ctx.region, 'AWS::EC2::Route', `${id}|${String(r.CidrBlock)}`);
      resources().remove(ctx.account, ctx.region, 'AWS::EC2::RouteTable', id);
      return {};
    },

    CreateRoute: (ctx, input: Input) => {
      const id = guard(input, 'RouteTableId');
      const table = tableOrFail(ctx, id);
      if (!table)
        throw fail(
          'InvalidParameterValue',
          `The emulator keeps routes of the tables an app creates; ${id} is a main route table.`,
        );
      const destination = input.DestinationCidrBlock ?? input.DestinationIpv6CidrBlock;
      if (typeof destination !== 'string')
        throw fail(
          'MissingParameter',
          'The request must contain the parameter destinationCidrBlock or destinationIpv6CidrBlock',
        );
      if (
        typeof input.DestinationCidrBlock === 'string' &&
        !/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/.test(input.DestinationCidrBlock)
      )
        throw fail(
          'InvalidParameterValue',
          `Value (${input.DestinationCidrBlock}) for parameter destinationCidrBlock is invalid. This is not a valid CIDR block.`,
        );
      const targets = ROUTE_TARGETS.filter((t) => typeof input[t] === 'string');
      if (targets.length !== 1)
        throw fail(
          'InvalidParameterCombination',
          'The request must contain exactly one of gatewayId, natGatewayId, transitGatewayId, vpcPeeringConnectionId, networkInterfaceId, instanceId or egressOnlyInternetGatewayId',
        );
      const target = targets[0]!;
      if (target === 'GatewayId') {
        const gateway = String(input.GatewayId);
        const attached = models(ctx, 'AWS::EC2::VPCGatewayAttachment').some(
          (a) => (a.InternetGatewayId === gateway || a.VpnGatewayId === gateway) && a.VpcId === table.VpcId,
        );
        if (
          !models(ctx, 'AWS::EC2::InternetGateway').some((g) => g.InternetGatewayId === gateway) &&
          !gateway.startsWith('vgw-')
        )
          throw fail('InvalidGatewayID.NotFound', `The gateway ID '${gateway}' does not exist`);
        if (!attached)
          throw fail(
            'InvalidParameterValue',
            `route table ${id} and network gateway ${gateway} belong to different networks`,
          );
      }
      if (
        routesOf(ctx, id).some(
          (r) => r.DestinationCidrBlock === destination || r.DestinationIpv6CidrBlock === destination,
        )
      )
        throw fail('RouteAlreadyExists', `The route identified by ${destination} already exists.`);
      dryRun(input);
      resources().create(ctx.account, ctx.region, 'AWS::EC2::Route', {
        RouteTableId: id,
        ...(typeof input.DestinationCidrBlock === 'string'
          ? { DestinationCidrBlock: input.DestinationCidrBlock }
          : {}),
        ...(typeof input.DestinationIpv6CidrBlock === 'string'
          ? { DestinationIpv6CidrBlock: input.DestinationIpv6CidrBlock }
          : {}),
        [target]: input[target],
      });
      return { Return: true };
    },

    DeleteRoute: (ctx, input: Input) => {
      const id = guard(input, 'RouteTableId');
      tableOrFail(ctx, id);
      const destination = input.DestinationCidrBlock ?? input.DestinationIpv6CidrBlock;
      const route = routesOf(ctx, id).find(
        (r) => r.DestinationCidrBlock === destination || r.DestinationIpv6CidrBlock === destination,
      );
      if (!route)
        throw fail(
          'InvalidRoute.NotFound',
          `no route with destination-cidr-block ${String(destination)} in route table ${id}`,
        );
      dryRun(input);
      resources().remove(ctx.account, ctx.region, 'AWS::EC2::Route', `${id}|${String(route.CidrBlock)}`);
      return {};
    },

    AssociateRouteTable: (ctx, input: Input) => {
      const id = guard(input, 'RouteTableId');
      const subnetId = guard(input, 'SubnetId');
      const table = tableOrFail(ctx, id);
      const subnet = here(ctx).subnets.find((s) => s.SubnetId === subnetId);
      if (!subnet) throw fail('InvalidSubnetID.NotFound', `The subnet ID '${subnetId}' does not exist`);
      if (table && subnet.VpcId !== table.VpcId)
        throw fail(
          'InvalidParameterValue',
          `Route table ${id} and subnet ${subnetId} belong to different networks`,
        );
      if (models(ctx, 'AWS::EC2::SubnetRouteTableAssociation').some((a) => a.SubnetId === subnetId))
        throw fail(
          'Resource.AlreadyAssociated',
          `the specified association for route table ${id} conflicts with an existing association`,
        );
      dryRun(input);
      const { identifier } = resources().create(
        ctx.account,
        ctx.region,
        'AWS::EC2::SubnetRouteTableAssociation',
        {
          RouteTableId: id,
          SubnetId: subnetId,
        },
      );
      return { AssociationId: identifier, AssociationState: { State: 'associated' } };
    },

    DisassociateRouteTable: (ctx, input: Input) => {
      const associationId = guard(input, 'AssociationId');
      dryRun(input);
      if (
        !resources().remove(ctx.account, ctx.region, 'AWS::EC2::SubnetRouteTableAssociation', associationId)
      )
        throw fail('InvalidAssociationID.NotFound', `The association ID '${associationId}' does not exist`);
      return {};
    },
  };
}
