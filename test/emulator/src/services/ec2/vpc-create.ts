/**
 * EC2's native calls that make and remove a VPC's basic parts: CreateVpc /
 * DeleteVpc, CreateSubnet / DeleteSubnet, CreateInternetGateway /
 * AttachInternetGateway / DetachInternetGateway / DeleteInternetGateway and
 * DescribeInternetGateways, with the validation and error codes the EC2 API
 * reference documents. What they make is kept as Cloud Control's records of
 * the same types (AWS::EC2::VPC, ::Subnet, ::InternetGateway,
 * ::VPCGatewayAttachment), so a VPC made by either API is one resource to
 * both, to the Describe* calls and to the inventory.
 */
import { AwsError } from '../../core/errors';
import type { CallContext, Operations } from '../../core/service';
import type { CloudControlResourcesApi } from '../cloudcontrol/resources-api';
import { applyFilters, page, selectIds, type Filter, type FilterFields, type Tag } from './filters';
import { network } from './network';
import { availabilityZones } from './zones';

interface TagSpecification {
  ResourceType?: string;
  Tags?: Tag[];
}

type Input = Record<string, unknown> & { DryRun?: boolean; TagSpecifications?: TagSpecification[] };

interface InternetGateway {
  InternetGatewayId: string;
  OwnerId: string;
  Attachments: { VpcId: string; State: 'available' }[];
  Tags: Tag[];
}

/** An IPv4 CIDR block as a network address and prefix length, or undefined when malformed. */
function parseCidr(text: unknown): { base: number; bits: number } | undefined {
  const m =
    typeof text === 'string' ? /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(text) : null;
  if (!m) return undefined;
  const octets = m.slice(1, 5).map(Number);
  const bits = Number(m[5]);
  if (octets.some((o) => o > 255) || bits > 32) return undefined;
  const address = octets.reduce((a, o) => a * 256 + o, 0);
  const size = 2 ** (32 - bits);
  return { base: address - (address % size), bits };
}

const span = (c: { base: number; bits: number }) => [c.base, c.base + 2 ** (32 - c.bits)] as const;
const within = (inner: { base: number; bits: number }, outer: { base: number; bits: number }) =>
  span(inner)[0] >= span(outer)[0] && span(inner)[1] <= span(outer)[1];
const overlap = (a: { base: number; bits: number }, b: { base: number; bits: number }) =>
  span(a)[0] < span(b)[1] && span(b)[0] < span(a)[1];

function dryRun(input: Input): void {
  if (input.DryRun)
    throw new AwsError('DryRunOperation', 'Request would have succeeded, but DryRun flag is set.', 412);
}

function required(input: Input, name: string): string {
  const value = input[name];
  if (typeof value !== 'string' || !value)
    throw new AwsError('MissingParameter', `The request must contain the parameter ${name}`, 400);
  return value;
}

/** The tags a TagSpecifications list gives the resource type being created. */
function tagsFor(input: Input, resourceType: string): Tag[] {
  const tags: Tag[] = [];
  for (const spec of input.TagSpecifications ?? []) {
    if (spec.ResourceType !== resourceType)
      throw new AwsError(
        'InvalidParameterValue',
        `'${spec.ResourceType ?? ''}' is not a valid taggable resource type for this operation.`,
        400,
      );
    tags.push(...(spec.Tags ?? []).map((t) => ({ Key: t.Key, Value: t.Value ?? '' })));
  }
  return tags;
}

const IGW_FILTERS: FilterFields<InternetGateway> = {
  'attachment.state': (g) => g.Attachments.map((a) => a.State),
  'attachment.vpc-id': (g) => g.Attachments.map((a) => a.VpcId),
  'internet-gateway-id': (g) => g.InternetGatewayId,
  'owner-id': (g) => g.OwnerId,
};

export function vpcCreateOperations(resources: () => CloudControlResourcesApi): Operations {
  const models = (ctx: CallContext, type: string) => resources().models(ctx.account, ctx.region, type);
  const here = (ctx: CallContext) => network(ctx.account, ctx.region, (type) => models(ctx, type));
  const vpcOrFail = (ctx: CallContext, id: string) => {
    const vpc = here(ctx).vpcs.find((v) => v.VpcId === id);
    if (!vpc) throw new AwsError('InvalidVpcID.NotFound', `The vpc ID '${id}' does not exist`, 400);
    return vpc;
  };
  const gateways = (ctx: CallContext): InternetGateway[] => {
    const attachments = models(ctx, 'AWS::EC2::VPCGatewayAttachment');
    return models(ctx, 'AWS::EC2::InternetGateway')
      .filter((m) => typeof m.InternetGatewayId === 'string')
      .map((m) => ({
        InternetGatewayId: m.InternetGatewayId as string,
        OwnerId: ctx.account,
        Attachments: attachments
          .filter((a) => a.InternetGatewayId === m.InternetGatewayId && typeof a.VpcId === 'string')
          .map((a) => ({ VpcId: a.VpcId as string, State: 'available' as const })),
        Tags: Array.isArray(m.Tags) ? (m.Tags as Tag[]) : [],
      }))
      .sort((a, b) => a.InternetGatewayId.localeCompare(b.InternetGatewayId));
  };
  const gatewayOrFail = (ctx: CallContext, id: string) => {
    const gateway = gateways(ctx).find((g) => g.InternetGatewayId === id);
    if (!gateway)
      throw new AwsError(
        'InvalidInternetGatewayID.NotFound',
        `The internetGateway ID '${id}' does not exist`,
        400,
      );
    return gateway;
  };
  const dependency = (noun: string, id: string) =>
    new AwsError('DependencyViolation', `The ${noun} '${id}' has dependencies and cannot be deleted.`, 400);

  return {
    CreateVpc: (ctx, input: Input) => {
      const cidr = parseCidr(input.CidrBlock);
      if (input.CidrBlock === undefined)
        throw new AwsError('MissingParameter', 'Either CidrBlock or Ipv4IpamPoolId must be specified.', 400);
      if (!cidr)
        throw new AwsError(
          'InvalidParameterValue',
          `Value (${String(input.CidrBlock)}) for parameter cidrBlock is invalid. This is not a valid CIDR block.`,
          400,
        );
      if (cidr.bits < 16 || cidr.bits > 28)
        throw new AwsError('InvalidVpc.Range', `The CIDR '${String(input.CidrBlock)}' is invalid.`, 400);
      const tenancy = typeof input.InstanceTenancy === 'string' ? input.InstanceTenancy : 'default';
      if (!['default', 'dedicated'].includes(tenancy))
        throw new AwsError(
          'InvalidParameterValue',
          `Value (${tenancy}) for parameter instanceTenancy is invalid.`,
          400,
        );
      const tags = tagsFor(input, 'vpc');
      dryRun(input);
      const { identifier } = resources().create(ctx.account, ctx.region, 'AWS::EC2::VPC', {
        CidrBlock: input.CidrBlock,
        InstanceTenancy: tenancy,
        ...(tags.length ? { Tags: tags } : {}),
      });
      return { Vpc: vpcOrFail(ctx, identifier) };
    },

    DeleteVpc: (ctx, input: Input) => {
      const id = required(input, 'VpcId');
      vpcOrFail(ctx, id);
      dryRun(input);
      if (
        models(ctx, 'AWS::EC2::Subnet').some((s) => s.VpcId === id) ||
        models(ctx, 'AWS::EC2::VPCGatewayAttachment').some((a) => a.VpcId === id) ||
        models(ctx, 'AWS::EC2::RouteTable').some((t) => t.VpcId === id) ||
        // The VPC's default group goes with it; any other group is a dependency.
        models(ctx, 'AWS::EC2::SecurityGroup').some((g) => g.VpcId === id)
      )
        throw dependency('vpc', id);
      if (!resources().remove(ctx.account, ctx.region, 'AWS::EC2::VPC', id))
        throw new AwsError('InvalidVpcID.NotFound', `The vpc ID '${id}' does not exist`, 400);
      return { return: true };
    },

    CreateSubnet: (ctx, input: Input) => {
      const vpcId = required(input, 'VpcId');
      const vpc = vpcOrFail(ctx, vpcId);
      const cidr = parseCidr(input.CidrBlock);
      if (!cidr)
        throw new AwsError(
          'InvalidParameterValue',
          `Value (${String(input.CidrBlock)}) for parameter cidrBlock is invalid. This is not a valid CIDR block.`,
          400,
        );
      const vpcCidr = parseCidr(vpc.CidrBlock);
      if (cidr.bits > 28 || !vpcCidr || !within(cidr, vpcCidr))
        throw new AwsError('InvalidSubnet.Range', `The CIDR '${String(input.CidrBlock)}' is invalid.`, 400);
      const taken = here(ctx).subnets.filter((s) => s.VpcId === vpcId);
      if (taken.some((s) => overlap(parseCidr(s.CidrBlock)!, cidr)))
        throw new AwsError(
          'InvalidSubnet.Conflict',
          `The CIDR '${String(input.CidrBlock)}' conflicts with another subnet`,
          400,
        );
      const zones = availabilityZones(ctx.region);
      const zone =
        typeof input.AvailabilityZone === 'string'
          ? zones.find((z) => z.zoneName === input.AvailabilityZone)
          : typeof input.AvailabilityZoneId === 'string'
            ? zones.find((z) => z.zoneId === input.AvailabilityZoneId)
            : zones[0];
      if (!zone)
        throw new AwsError(
          'InvalidParameterValue',
          `Value (${String(input.AvailabilityZone ?? input.AvailabilityZoneId)}) for parameter availabilityZone is invalid. Subnets can currently only be created in the following availability zones: ${zones.map((z) => z.zoneName).join(', ')}.`,
          400,
        );
      const tags = tagsFor(input, 'subnet');
      dryRun(input);
      const { identifier } = resources().create(ctx.account, ctx.region, 'AWS::EC2::Subnet', {
        VpcId: vpcId,
        CidrBlock: input.CidrBlock,
        AvailabilityZone: zone.zoneName,
        ...(tags.length ? { Tags: tags } : {}),
      });
      return { Subnet: here(ctx).subnets.find((s) => s.SubnetId === identifier) };
    },

    DeleteSubnet: (ctx, input: Input) => {
      const id = required(input, 'SubnetId');
      dryRun(input);
      if (
        models(ctx, 'AWS::EC2::SubnetRouteTableAssociation').some((a) => a.SubnetId === id) ||
        models(ctx, 'AWS::EC2::NatGateway').some((n) => n.SubnetId === id)
      )
        throw dependency('subnet', id);
      if (!resources().remove(ctx.account, ctx.region, 'AWS::EC2::Subnet', id))
        throw new AwsError('InvalidSubnetID.NotFound', `The subnet ID '${id}' does not exist`, 400);
      return {};
    },

    CreateInternetGateway: (ctx, input: Input) => {
      const tags = tagsFor(input, 'internet-gateway');
      dryRun(input);
      const { identifier } = resources().create(ctx.account, ctx.region, 'AWS::EC2::InternetGateway', {
        ...(tags.length ? { Tags: tags } : {}),
      });
      return { InternetGateway: gatewayOrFail(ctx, identifier) };
    },

    AttachInternetGateway: (ctx, input: Input) => {
      const gateway = gatewayOrFail(ctx, required(input, 'InternetGatewayId'));
      const vpcId = required(input, 'VpcId');
      vpcOrFail(ctx, vpcId);
      const attached = gateway.Attachments[0]?.VpcId;
      if (attached)
        throw new AwsError(
          'Resource.AlreadyAssociated',
          `resource ${gateway.InternetGatewayId} is already attached to network ${attached}`,
          400,
        );
      if (gateways(ctx).some((g) => g.Attachments.some((a) => a.VpcId === vpcId)))
        throw new AwsError(
          'Resource.AlreadyAssociated',
          `network ${vpcId} already has an internet gateway attached`,
          400,
        );
      dryRun(input);
      resources().create(ctx.account, ctx.region, 'AWS::EC2::VPCGatewayAttachment', {
        VpcId: vpcId,
        InternetGatewayId: gateway.InternetGatewayId,
      });
      return {};
    },

    DetachInternetGateway: (ctx, input: Input) => {
      const gateway = gatewayOrFail(ctx, required(input, 'InternetGatewayId'));
      const vpcId = required(input, 'VpcId');
      const attachment = models(ctx, 'AWS::EC2::VPCGatewayAttachment').find(
        (a) => a.InternetGatewayId === gateway.InternetGatewayId && a.VpcId === vpcId,
      );
      if (!attachment)
        throw new AwsError(
          'Gateway.NotAttached',
          `resource ${gateway.InternetGatewayId} is not attached to network ${vpcId}`,
          400,
        );
      dryRun(input);
      // The attachment's Cloud Control identifier: its primary identifier, AttachmentType|VpcId.
      resources().remove(
        ctx.account,
        ctx.region,
        'AWS::EC2::VPCGatewayAttachment',
        `${String(attachment.AttachmentType)}|${vpcId}`,
      );
      return {};
    },

    DeleteInternetGateway: (ctx, input: Input) => {
      const gateway = gatewayOrFail(ctx, required(input, 'InternetGatewayId'));
      if (gateway.Attachments.length) throw dependency('internetGateway', gateway.InternetGatewayId);
      dryRun(input);
      resources().remove(ctx.account, ctx.region, 'AWS::EC2::InternetGateway', gateway.InternetGatewayId);
      return {};
    },

    DescribeInternetGateways: (
      ctx,
      input: Input & { Filters?: Filter[]; MaxResults?: number; NextToken?: string },
    ) => {
      dryRun(input);
      const ids = input.InternetGatewayIds as string[] | undefined;
      for (const id of ids ?? [])
        if (!/^igw-[0-9a-f]{8}([0-9a-f]{9})?$/.test(id))
          throw new AwsError('InvalidInternetGatewayID.Malformed', `Invalid id: "${id}"`, 400);
      const selected = selectIds(gateways(ctx), ids, (g) => g.InternetGatewayId, {
        code: 'InvalidInternetGatewayID.NotFound',
        noun: 'internetGateway',
      });
      const filtered = applyFilters(selected, input.Filters, IGW_FILTERS, (g) => g.Tags);
      const { items, nextToken } = page(filtered, input, { min: 5, max: 1000 });
      return { InternetGateways: items, NextToken: nextToken };
    },
  };
}
