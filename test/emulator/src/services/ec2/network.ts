/**
 * The VPC network of one account and region as EC2's Describe* calls see it:
 * the resources made through Cloud Control (AWS::EC2::VPC, ::Subnet,
 * ::RouteTable, ::Route, ::SubnetRouteTableAssociation, ::VPNGateway,
 * ::VPCGatewayAttachment), the main route table EC2 makes with every VPC,
 * and the default VPC every account has in every region. What EC2 makes by
 * itself is derived from the account, region and VPC id rather than stored,
 * so it is the same on every call and never appears in the inventory of
 * resources an app made.
 */
import { createHash } from 'node:crypto';
import { availabilityZones } from './zones';
import type { Tag } from './filters';

export interface Vpc {
  VpcId: string;
  CidrBlock?: string;
  DhcpOptionsId: string;
  State: 'available';
  InstanceTenancy: string;
  IsDefault: boolean;
  OwnerId: string;
  CidrBlockAssociationSet: { AssociationId: string; CidrBlock: string; CidrBlockState: { State: string } }[];
  Tags: Tag[];
}

export interface Subnet {
  SubnetId: string;
  SubnetArn: string;
  VpcId: string;
  CidrBlock?: string;
  AvailabilityZone: string;
  AvailabilityZoneId?: string;
  AvailableIpAddressCount: number;
  DefaultForAz: boolean;
  MapPublicIpOnLaunch: boolean;
  MapCustomerOwnedIpOnLaunch: boolean;
  AssignIpv6AddressOnCreation: boolean;
  EnableDns64: boolean;
  Ipv6Native: boolean;
  Ipv6CidrBlockAssociationSet: never[];
  State: 'available';
  OwnerId: string;
  Tags: Tag[];
}

export interface Route {
  DestinationCidrBlock?: string;
  DestinationIpv6CidrBlock?: string;
  GatewayId?: string;
  NatGatewayId?: string;
  TransitGatewayId?: string;
  VpcPeeringConnectionId?: string;
  NetworkInterfaceId?: string;
  InstanceId?: string;
  EgressOnlyInternetGatewayId?: string;
  Origin: 'CreateRouteTable' | 'CreateRoute';
  State: 'active';
}

export interface RouteTableAssociation {
  RouteTableAssociationId: string;
  RouteTableId: string;
  SubnetId?: string;
  Main: boolean;
  AssociationState: { State: 'associated' };
}

export interface RouteTable {
  RouteTableId: string;
  VpcId: string;
  OwnerId: string;
  Routes: Route[];
  Associations: RouteTableAssociation[];
  PropagatingVgws: never[];
  Tags: Tag[];
}

export interface VpnGateway {
  VpnGatewayId: string;
  State: 'available';
  Type: string;
  AmazonSideAsn: number;
  AvailabilityZone?: string;
  VpcAttachments: { VpcId: string; State: 'attached' }[];
  Tags: Tag[];
}

export interface Network {
  vpcs: Vpc[];
  subnets: Subnet[];
  routeTables: RouteTable[];
  vpnGateways: VpnGateway[];
}

/** Cloud Control's models of a type in this account and region. */
export type Models = (typeName: string) => Record<string, unknown>[];

/** An EC2-shaped id (`vpc-` and 17 hex digits) that is the same for the same seed. */
export function derivedId(prefix: string, seed: string): string {
  return `${prefix}-${createHash('sha256').update(seed).digest('hex').slice(0, 17)}`;
}

/** Addresses a subnet offers: the block's size less the five AWS reserves. */
function usableAddresses(cidr: string | undefined): number {
  const bits = Number(/\/(\d+)$/.exec(cidr ?? '')?.[1]);
  return Number.isInteger(bits) && bits <= 32 ? 2 ** (32 - bits) - 5 : 0;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const tagsOf = (v: unknown): Tag[] => (Array.isArray(v) ? (v as Tag[]) : []);

function vpcOf(
  account: string,
  id: string,
  cidr: string | undefined,
  isDefault: boolean,
  tags: Tag[],
  tenancy = 'default',
): Vpc {
  return {
    VpcId: id,
    CidrBlock: cidr,
    DhcpOptionsId: derivedId('dopt', `${account}|dhcp`),
    State: 'available',
    InstanceTenancy: tenancy,
    IsDefault: isDefault,
    OwnerId: account,
    CidrBlockAssociationSet: cidr
      ? [
          {
            AssociationId: derivedId('vpc-cidr-assoc', id),
            CidrBlock: cidr,
            CidrBlockState: { State: 'associated' },
          },
        ]
      : [],
    Tags: tags,
  };
}

function subnetOf(
  account: string,
  region: string,
  fields: Pick<
    Subnet,
    'SubnetId' | 'VpcId' | 'CidrBlock' | 'AvailabilityZone' | 'DefaultForAz' | 'MapPublicIpOnLaunch' | 'Tags'
  >,
): Subnet {
  const zone = availabilityZones(region).find((z) => z.zoneName === fields.AvailabilityZone);
  return {
    ...fields,
    SubnetArn: `arn:aws:ec2:${region}:${account}:subnet/${fields.SubnetId}`,
    AvailabilityZoneId: zone?.zoneId,
    AvailableIpAddressCount: usableAddresses(fields.CidrBlock),
    MapCustomerOwnedIpOnLaunch: false,
    AssignIpv6AddressOnCreation: false,
    EnableDns64: false,
    Ipv6Native: false,
    Ipv6CidrBlockAssociationSet: [],
    State: 'available',
    OwnerId: account,
  };
}

function localRoute(cidr: string | undefined): Route[] {
  return cidr
    ? [{ DestinationCidrBlock: cidr, GatewayId: 'local', Origin: 'CreateRouteTable', State: 'active' }]
    : [];
}

function mainRouteTable(account: string, vpc: Vpc, extraRoutes: Route[]): RouteTable {
  const id = derivedId('rtb', `${vpc.VpcId}|main`);
  return {
    RouteTableId: id,
    VpcId: vpc.VpcId,
    OwnerId: account,
    Routes: [...localRoute(vpc.CidrBlock), ...extraRoutes],
    Associations: [
      {
        RouteTableAssociationId: derivedId('rtbassoc', `${id}|main`),
        RouteTableId: id,
        Main: true,
        AssociationState: { State: 'associated' },
      },
    ],
    PropagatingVgws: [],
    Tags: [],
  };
}

/**
 * The default VPC: 172.31.0.0/16, a /20 default subnet in each zone, an
 * internet gateway on the main route table (so its subnets are public).
 */
function defaultNetwork(account: string, region: string): Network {
  const vpc = vpcOf(account, derivedId('vpc', `${account}|${region}|default`), '172.31.0.0/16', true, []);
  const subnets = availabilityZones(region).map((zone, i) =>
    subnetOf(account, region, {
      SubnetId: derivedId('subnet', `${vpc.VpcId}|${zone.zoneName}`),
      VpcId: vpc.VpcId,
      CidrBlock: `172.31.${i * 16}.0/20`,
      AvailabilityZone: zone.zoneName,
      DefaultForAz: true,
      MapPublicIpOnLaunch: true,
      Tags: [],
    }),
  );
  const internetGateway = derivedId('igw', vpc.VpcId);
  const table = mainRouteTable(account, vpc, [
    { DestinationCidrBlock: '0.0.0.0/0', GatewayId: internetGateway, Origin: 'CreateRoute', State: 'active' },
  ]);
  return { vpcs: [vpc], subnets, routeTables: [table], vpnGateways: [] };
}

/** The targets a route may name (one of them). */
export const ROUTE_TARGETS = [
  'GatewayId',
  'NatGatewayId',
  'TransitGatewayId',
  'VpcPeeringConnectionId',
  'NetworkInterfaceId',
  'InstanceId',
  'EgressOnlyInternetGatewayId',
] as const;

function routeOf(model: Record<string, unknown>): Route {
  const route: Route = {
    DestinationCidrBlock: str(model.DestinationCidrBlock),
    DestinationIpv6CidrBlock: str(model.DestinationIpv6CidrBlock),
    Origin: 'CreateRoute',
    State: 'active',
  };
  for (const target of ROUTE_TARGETS) route[target] = str(model[target]);
  return route;
}

/** The network the app made through Cloud Control, with EC2's implicit main route tables. */
function appNetwork(account: string, region: string, models: Models): Network {
  const firstZone = availabilityZones(region)[0]!.zoneName;
  const vpcs = models('AWS::EC2::VPC')
    .filter((m) => str(m.VpcId))
    .map((m) =>
      vpcOf(account, str(m.VpcId)!, str(m.CidrBlock), false, tagsOf(m.Tags), str(m.InstanceTenancy)),
    );
  const subnets = models('AWS::EC2::Subnet')
    .filter((m) => str(m.SubnetId))
    .map((m) =>
      subnetOf(account, region, {
        SubnetId: str(m.SubnetId)!,
        VpcId: str(m.VpcId) ?? '',
        CidrBlock: str(m.CidrBlock),
        AvailabilityZone:
          str(m.AvailabilityZone) ??
          availabilityZones(region).find((z) => z.zoneId === m.AvailabilityZoneId)?.zoneName ??
          firstZone,
        DefaultForAz: false,
        MapPublicIpOnLaunch: m.MapPublicIpOnLaunch === true,
        Tags: tagsOf(m.Tags),
      }),
    );
  const routes = models('AWS::EC2::Route');
  const routesOf = (tableId: string) => routes.filter((r) => r.RouteTableId === tableId).map(routeOf);
  const associations = models('AWS::EC2::SubnetRouteTableAssociation');
  const explicit = models('AWS::EC2::RouteTable')
    .filter((m) => str(m.RouteTableId))
    .map((m): RouteTable => {
      const id = str(m.RouteTableId)!;
      const vpc = vpcs.find((v) => v.VpcId === m.VpcId);
      return {
        RouteTableId: id,
        VpcId: str(m.VpcId) ?? '',
        OwnerId: account,
        Routes: [...localRoute(vpc?.CidrBlock), ...routesOf(id)],
        Associations: associations
          .filter((a) => a.RouteTableId === id)
          .map((a) => ({
            RouteTableAssociationId: str(a.Id) ?? derivedId('rtbassoc', `${id}|${str(a.SubnetId)}`),
            RouteTableId: id,
            SubnetId: str(a.SubnetId),
            Main: false,
            AssociationState: { State: 'associated' },
          })),
        PropagatingVgws: [],
        Tags: tagsOf(m.Tags),
      };
    });
  const mains = vpcs.map((vpc) =>
    mainRouteTable(account, vpc, routesOf(derivedId('rtb', `${vpc.VpcId}|main`))),
  );
  const attachments = models('AWS::EC2::VPCGatewayAttachment');
  const vpnGateways = models('AWS::EC2::VPNGateway')
    .filter((m) => str(m.VPNGatewayId))
    .map((m): VpnGateway => {
      const id = str(m.VPNGatewayId)!;
      return {
        VpnGatewayId: id,
        State: 'available',
        Type: str(m.Type) ?? 'ipsec.1',
        AmazonSideAsn: typeof m.AmazonSideAsn === 'number' ? m.AmazonSideAsn : 64512,
        VpcAttachments: attachments
          .filter((a) => a.VpnGatewayId === id && str(a.VpcId))
          .map((a) => ({ VpcId: str(a.VpcId)!, State: 'attached' as const })),
        Tags: tagsOf(m.Tags),
      };
    });
  return { vpcs, subnets, routeTables: [...mains, ...explicit], vpnGateways };
}

/** Everything in one account and region, each list in id order (a stable order for pagination). */
export function network(account: string, region: string, models: Models): Network {
  const made = appNetwork(account, region, models);
  const implicit = defaultNetwork(account, region);
  const byId =
    <T>(id: (t: T) => string) =>
    (a: T, b: T) =>
      id(a).localeCompare(id(b));
  return {
    vpcs: [...implicit.vpcs, ...made.vpcs].sort(byId((v) => v.VpcId)),
    subnets: [...implicit.subnets, ...made.subnets].sort(byId((s) => s.SubnetId)),
    routeTables: [...implicit.routeTables, ...made.routeTables].sort(byId((t) => t.RouteTableId)),
    vpnGateways: made.vpnGateways.sort(byId((g) => g.VpnGatewayId)),
  };
}
