/**
 * DescribeVpcs, DescribeSubnets, DescribeRouteTables and DescribeVpnGateways
 * (what `ec2.Vpc.fromLookup` calls), over the network `network.ts` builds,
 * with the filters, id lists, paging limits and errors the EC2 API reference
 * documents for each.
 */
import { AwsError } from '../../core/errors';
import type { CallContext, Operations } from '../../core/service';
import { applyFilters, page, selectIds, type Filter, type FilterFields } from './filters';
import { network, type RouteTable, type Subnet, type Vpc, type VpnGateway } from './network';

interface DescribeInput {
  Filters?: Filter[];
  MaxResults?: number;
  NextToken?: string;
  DryRun?: boolean;
}

const VPC_FILTERS: FilterFields<Vpc> = {
  cidr: (v) => v.CidrBlock,
  'cidr-block-association.cidr-block': (v) => v.CidrBlockAssociationSet.map((a) => a.CidrBlock),
  'cidr-block-association.association-id': (v) => v.CidrBlockAssociationSet.map((a) => a.AssociationId),
  'cidr-block-association.state': (v) => v.CidrBlockAssociationSet.map((a) => a.CidrBlockState.State),
  'dhcp-options-id': (v) => v.DhcpOptionsId,
  'is-default': (v) => v.IsDefault,
  // The name CDK's VPC lookup sends (`isDefault: true`); EC2 accepts it alongside the documented one.
  isDefault: (v) => v.IsDefault,
  'owner-id': (v) => v.OwnerId,
  state: (v) => v.State,
  'vpc-id': (v) => v.VpcId,
};

const SUBNET_FILTERS: FilterFields<Subnet> = {
  'availability-zone': (s) => s.AvailabilityZone,
  availabilityZone: (s) => s.AvailabilityZone,
  'availability-zone-id': (s) => s.AvailabilityZoneId,
  availabilityZoneId: (s) => s.AvailabilityZoneId,
  'available-ip-address-count': (s) => s.AvailableIpAddressCount,
  'cidr-block': (s) => s.CidrBlock,
  cidr: (s) => s.CidrBlock,
  cidrBlock: (s) => s.CidrBlock,
  'default-for-az': (s) => s.DefaultForAz,
  defaultForAz: (s) => s.DefaultForAz,
  'map-public-ip-on-launch': (s) => s.MapPublicIpOnLaunch,
  'owner-id': (s) => s.OwnerId,
  state: (s) => s.State,
  'subnet-arn': (s) => s.SubnetArn,
  'subnet-id': (s) => s.SubnetId,
  'vpc-id': (s) => s.VpcId,
  vpcId: (s) => s.VpcId,
};

const ROUTE_TABLE_FILTERS: FilterFields<RouteTable> = {
  'association.gateway-id': () => undefined,
  'association.main': (t) => t.Associations.map((a) => a.Main),
  'association.route-table-association-id': (t) => t.Associations.map((a) => a.RouteTableAssociationId),
  'association.route-table-id': (t) => t.Associations.map((a) => a.RouteTableId),
  'association.subnet-id': (t) => t.Associations.map((a) => a.SubnetId),
  'owner-id': (t) => t.OwnerId,
  'route-table-id': (t) => t.RouteTableId,
  'route.destination-cidr-block': (t) => t.Routes.map((r) => r.DestinationCidrBlock),
  'route.destination-ipv6-cidr-block': (t) => t.Routes.map((r) => r.DestinationIpv6CidrBlock),
  'route.egress-only-internet-gateway-id': (t) => t.Routes.map((r) => r.EgressOnlyInternetGatewayId),
  'route.gateway-id': (t) => t.Routes.map((r) => r.GatewayId),
  'route.instance-id': (t) => t.Routes.map((r) => r.InstanceId),
  'route.nat-gateway-id': (t) => t.Routes.map((r) => r.NatGatewayId),
  'route.transit-gateway-id': (t) => t.Routes.map((r) => r.TransitGatewayId),
  'route.origin': (t) => t.Routes.map((r) => r.Origin),
  'route.state': (t) => t.Routes.map((r) => r.State),
  'route.vpc-peering-connection-id': (t) => t.Routes.map((r) => r.VpcPeeringConnectionId),
  'vpc-id': (t) => t.VpcId,
};

const VPN_GATEWAY_FILTERS: FilterFields<VpnGateway> = {
  'amazon-side-asn': (g) => g.AmazonSideAsn,
  'attachment.state': (g) => g.VpcAttachments.map((a) => a.State),
  'attachment.vpc-id': (g) => g.VpcAttachments.map((a) => a.VpcId),
  'availability-zone': (g) => g.AvailabilityZone,
  state: (g) => g.State,
  type: (g) => g.Type,
  'vpn-gateway-id': (g) => g.VpnGatewayId,
};

/** An id list member that is not shaped like the resource's ids: `<Code>.Malformed`. */
function checkShape(ids: string[] | undefined, prefix: string, code: string): void {
  for (const id of ids ?? [])
    if (!new RegExp(`^${prefix}-[0-9a-f]{8}([0-9a-f]{9})?$`).test(id))
      throw new AwsError(`${code}.Malformed`, `Invalid id: "${id}"`, 400);
}

function dryRun(input: DescribeInput): void {
  if (input.DryRun)
    throw new AwsError('DryRunOperation', 'Request would have succeeded, but DryRun flag is set.', 412);
}

/** The Describe* handlers, reading Cloud Control's models (by account, region and type) at each call. */
export function describeOperations(
  models: (account: string, region: string, typeName: string) => Record<string, unknown>[],
): Operations {
  const here = (ctx: CallContext) =>
    network(ctx.account, ctx.region, (typeName) => models(ctx.account, ctx.region, typeName));
  return {
    DescribeVpcs: (ctx: CallContext, input: DescribeInput & { VpcIds?: string[] }) => {
      dryRun(input);
      checkShape(input.VpcIds, 'vpc', 'InvalidVpcID');
      const selected = selectIds(here(ctx).vpcs, input.VpcIds, (v) => v.VpcId, {
        code: 'InvalidVpcID.NotFound',
        noun: 'vpc',
      });
      const { items, nextToken } = page(
        applyFilters(selected, input.Filters, VPC_FILTERS, (v) => v.Tags),
        input,
        { min: 5, max: 1000 },
      );
      return { Vpcs: items, NextToken: nextToken };
    },
    DescribeSubnets: (ctx: CallContext, input: DescribeInput & { SubnetIds?: string[] }) => {
      dryRun(input);
      checkShape(input.SubnetIds, 'subnet', 'InvalidSubnetID');
      const selected = selectIds(here(ctx).subnets, input.SubnetIds, (s) => s.SubnetId, {
        code: 'InvalidSubnetID.NotFound',
        noun: 'subnet',
      });
      const { items, nextToken } = page(
        applyFilters(selected, input.Filters, SUBNET_FILTERS, (s) => s.Tags),
        input,
        { min: 5, max: 1000 },
      );
      return { Subnets: items, NextToken: nextToken };
    },
    DescribeRouteTables: (ctx: CallContext, input: DescribeInput & { RouteTableIds?: string[] }) => {
      dryRun(input);
      checkShape(input.RouteTableIds, 'rtb', 'InvalidRouteTableId');
      const selected = selectIds(here(ctx).routeTables, input.RouteTableIds, (t) => t.RouteTableId, {
        code: 'InvalidRouteTableID.NotFound',
        noun: 'routeTable',
      });
      const { items, nextToken } = page(
        applyFilters(selected, input.Filters, ROUTE_TABLE_FILTERS, (t) => t.Tags),
        input,
        { min: 5, max: 100 },
      );
      return { RouteTables: items, NextToken: nextToken };
    },
    // DescribeVpnGateways is not paginated.
    DescribeVpnGateways: (ctx: CallContext, input: DescribeInput & { VpnGatewayIds?: string[] }) => {
      dryRun(input);
      checkShape(input.VpnGatewayIds, 'vgw', 'InvalidVpnGatewayID');
      const selected = selectIds(here(ctx).vpnGateways, input.VpnGatewayIds, (g) => g.VpnGatewayId, {
        code: 'InvalidVpnGatewayID.NotFound',
        noun: 'vpnGateway',
      });
      return { VpnGateways: applyFilters(selected, input.Filters, VPN_GATEWAY_FILTERS, (g) => g.Tags) };
    },
  };
}
