/**
 * DescribeVpcs, DescribeSubnets, DescribeRouteTables and DescribeVpnGateways
 * (what `ec2.Vpc.fromLookup` calls), over the network `network.ts` builds,
 * with the filters, id lists, paging limits and errors the EC2 API reference
 * documents for each.
 */
import { AwsError } from '../../core/errors';
import type { CallContext, Operations } from '../../core/service';
import { applyFilters, page, selectIds, type Filter, type FilterFields, type Tag } from './filters';
import { network, type Network, type RouteTable, type Subnet, type Vpc, type VpnGateway } from './network';

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

/**
 * One kind of item a Describe call lists. Its name gives the members
 * (`Vpc`: input `VpcIds`, output `Vpcs`, item id `VpcId`) and the noun of the
 * not-found message (`vpc`).
 */
interface Kind<T extends { Tags: Tag[] }> {
  name: string;
  items: (n: Network) => T[];
  filters: FilterFields<T>;
  /** The id prefix (`vpc`). */
  prefix: string;
  /** The error code stem: `InvalidVpcID` gives `InvalidVpcID.NotFound` and `InvalidVpcID.Malformed`. */
  errorStem: string;
  /** Where EC2 spells the malformed code differently (`InvalidRouteTableId.Malformed`). */
  malformedStem?: string;
  /** MaxResults bounds; undefined: the call is not paginated. */
  limits?: { min: number; max: number };
}

function describe<T extends { Tags: Tag[] }>(kind: Kind<T>, here: (ctx: CallContext) => Network) {
  const idOf = (item: T) => (item as unknown as Record<string, string>)[`${kind.name}Id`]!;
  return (ctx: CallContext, input: DescribeInput & Record<string, unknown>) => {
    if (input.DryRun)
      throw new AwsError('DryRunOperation', 'Request would have succeeded, but DryRun flag is set.', 412);
    const ids = input[`${kind.name}Ids`] as string[] | undefined;
    checkShape(ids, kind.prefix, kind.malformedStem ?? kind.errorStem);
    const selected = selectIds(kind.items(here(ctx)), ids, idOf, {
      code: `${kind.errorStem}.NotFound`,
      noun: kind.name[0]!.toLowerCase() + kind.name.slice(1),
    });
    const filtered = applyFilters(selected, input.Filters, kind.filters, (item) => item.Tags);
    const output = `${kind.name}s`;
    if (!kind.limits) return { [output]: filtered };
    const { items, nextToken } = page(filtered, input, kind.limits);
    return { [output]: items, NextToken: nextToken };
  };
}

/** The Describe* handlers, reading Cloud Control's models (by account, region and type) at each call. */
export function describeOperations(
  models: (account: string, region: string, typeName: string) => Record<string, unknown>[],
): Operations {
  const here = (ctx: CallContext) =>
    network(ctx.account, ctx.region, (typeName) => models(ctx.account, ctx.region, typeName));
  const vpcs: Kind<Vpc> = {
    name: 'Vpc',
    items: (n) => n.vpcs,
    filters: VPC_FILTERS,
    prefix: 'vpc',
    errorStem: 'InvalidVpcID',
    limits: { min: 5, max: 1000 },
  };
  const subnets: Kind<Subnet> = {
    name: 'Subnet',
    items: (n) => n.subnets,
    filters: SUBNET_FILTERS,
    prefix: 'subnet',
    errorStem: 'InvalidSubnetID',
    limits: { min: 5, max: 1000 },
  };
  const routeTables: Kind<RouteTable> = {
    name: 'RouteTable',
    items: (n) => n.routeTables,
    filters: ROUTE_TABLE_FILTERS,
    prefix: 'rtb',
    errorStem: 'InvalidRouteTableID',
    malformedStem: 'InvalidRouteTableId',
    limits: { min: 5, max: 100 },
  };
  const vpnGateways: Kind<VpnGateway> = {
    name: 'VpnGateway',
    items: (n) => n.vpnGateways,
    filters: VPN_GATEWAY_FILTERS,
    prefix: 'vgw',
    errorStem: 'InvalidVpnGatewayID',
  };
  return {
    DescribeVpcs: describe(vpcs, here),
    DescribeSubnets: describe(subnets, here),
    DescribeRouteTables: describe(routeTables, here),
    DescribeVpnGateways: describe(vpnGateways, here),
  };
}
