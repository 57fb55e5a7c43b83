/**
 * Elastic IP addresses and NAT gateways, as the EC2 API reference documents
 * them: AllocateAddress / ReleaseAddress / DescribeAddresses /
 * AssociateAddress / DisassociateAddress and CreateNatGateway /
 * DeleteNatGateway / DescribeNatGateways.
 *
 * Addresses, their associations and NAT gateways are kept as Cloud Control's
 * records (AWS::EC2::EIP, ::EIPAssociation, ::NatGateway), so either API and
 * the inventory see one resource. What only EC2 shows is kept in the EC2
 * store: a natively created gateway answers `pending` until it has been
 * described once (then `available`); a deleted one `deleting` until described
 * once (then `deleted`, listed as AWS lists deleted gateways for a while), and
 * while it is `deleting` it still holds its address. A gateway EC2 cannot
 * make (unknown or taken address, no internet gateway) is `failed` with
 * EC2's FailureCode and is no Cloud Control resource.
 */
import { AwsError } from '../../core/errors';
import type { CallContext, Operations } from '../../core/service';
import type { CloudControlResourcesApi } from '../cloudcontrol/resources-api';
import { applyFilters, page, selectIds, type Filter, type FilterFields, type Tag } from './filters';
import { derivedId, network } from './network';
import type { Ec2Store, NatLifecycle } from './store';

type Input = Record<string, unknown> & {
  DryRun?: boolean;
  TagSpecifications?: Array<{ ResourceType?: string; Tags?: Tag[] }>;
  Filters?: Filter[];
  MaxResults?: number;
  NextToken?: string;
};

const fail = (code: string, message: string) => new AwsError(code, message, 400);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

function dryRun(input: Input): void {
  if (input.DryRun)
    throw new AwsError('DryRunOperation', 'Request would have succeeded, but DryRun flag is set.', 412);
}

function required(input: Input, name: string): string {
  const value = str(input[name]);
  if (!value) throw fail('MissingParameter', `The request must contain the parameter ${name}`);
  return value;
}

function tagsFor(input: Input, resourceType: string): Tag[] {
  const tags: Tag[] = [];
  for (const spec of input.TagSpecifications ?? []) {
    if (spec.ResourceType !== resourceType)
      throw fail(
        'InvalidParameterValue',
        `'${spec.ResourceType ?? ''}' is not a valid taggable resource type for this operation.`,
      );
    tags.push(...(spec.Tags ?? []).map((t) => ({ Key: t.Key, Value: t.Value ?? '' })));
  }
  return tags;
}

/** An address's holder: an EIPAssociation resource or a NAT gateway. */
interface Holder {
  AssociationId: string;
  InstanceId?: string;
  NetworkInterfaceId?: string;
  PrivateIpAddress?: string;
  /** The Cloud Control identifier of the EIPAssociation; undefined for a NAT gateway. */
  associationResource?: string;
  natGatewayId?: string;
}

interface Address {
  AllocationId: string;
  PublicIp: string;
  Domain: 'vpc';
  NetworkBorderGroup: string;
  PublicIpv4Pool: 'amazon';
  Tags: Tag[];
  holder?: Holder;
}

const ADDRESS_FILTERS: FilterFields<Address> = {
  'allocation-id': (a) => a.AllocationId,
  'association-id': (a) => a.holder?.AssociationId,
  domain: (a) => a.Domain,
  'instance-id': (a) => a.holder?.InstanceId,
  'network-border-group': (a) => a.NetworkBorderGroup,
  'network-interface-id': (a) => a.holder?.NetworkInterfaceId,
  'private-ip-address': (a) => a.holder?.PrivateIpAddress,
  'public-ip': (a) => a.PublicIp,
};

interface NatGateway {
  NatGatewayId: string;
  SubnetId: string;
  VpcId?: string;
  State: NatLifecycle['state'];
  ConnectivityType: string;
  CreateTime?: Date;
  DeleteTime?: Date;
  FailureCode?: string;
  FailureMessage?: string;
  NatGatewayAddresses: Record<string, unknown>[];
  Tags: Tag[];
}

const NAT_FILTERS: FilterFields<NatGateway> = {
  'nat-gateway-id': (n) => n.NatGatewayId,
  state: (n) => n.State,
  'subnet-id': (n) => n.SubnetId,
  'vpc-id': (n) => n.VpcId,
};

/** A private address inside the subnet's block, stable for the gateway. */
function privateIpIn(cidr: string | undefined, seed: string): string | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(cidr ?? '');
  if (!m) return undefined;
  const base = m.slice(1, 5).reduce((a, o) => a * 256 + Number(o), 0);
  const size = 2 ** (32 - Number(m[5]));
  // The first four and the last address of a subnet are AWS's.
  const offset = 4 + (parseInt(derivedId('x', seed).slice(2, 10), 16) % Math.max(1, size - 5));
  const ip = base - (base % size) + offset;
  return [24, 16, 8, 0].map((s) => Math.floor(ip / 2 ** s) % 256).join('.');
}

export function addressOperations(store: Ec2Store, resources: () => CloudControlResourcesApi): Operations {
  const models = (ctx: CallContext, type: string) => resources().models(ctx.account, ctx.region, type);
  const key = (ctx: CallContext, id: string) => `${ctx.account}|${ctx.region}|${id}`;
  const subnets = (ctx: CallContext) => network(ctx.account, ctx.region, (t) => models(ctx, t)).subnets;

  /** Every gateway: Cloud Control's, and the failed, deleting and deleted ones only EC2 remembers. */
  const gateways = (ctx: CallContext): NatGateway[] => {
    const out: NatGateway[] = [];
    const here = subnets(ctx);
    const build = (m: Record<string, unknown>, life: NatLifecycle | undefined): NatGateway => {
      const id = String(m.NatGatewayId);
      const subnet = here.find((s) => s.SubnetId === m.SubnetId);
      const connectivity = str(m.ConnectivityType) ?? 'public';
      const allocationId = str(m.AllocationId);
      const eip = allocationId
        ? models(ctx, 'AWS::EC2::EIP').find((e) => e.AllocationId === allocationId)
        : undefined;
      const privateIp = str(m.PrivateIpAddress) ?? privateIpIn(subnet?.CidrBlock, id);
      const state = life?.state ?? 'available';
      const addressRow =
        state === 'failed' || state === 'deleted'
          ? undefined
          : {
              ...(allocationId ? { AllocationId: allocationId, PublicIp: str(eip?.PublicIp) } : {}),
              ...(allocationId ? { AssociationId: derivedId('eipassoc', `${id}|${allocationId}`) } : {}),
              NetworkInterfaceId: str(m.EniId) ?? derivedId('eni', id),
              PrivateIp: privateIp,
              IsPrimary: true,
              Status: state === 'deleting' ? 'disassociating' : 'succeeded',
            };
      return {
        NatGatewayId: id,
        SubnetId: String(m.SubnetId),
        VpcId: subnet?.VpcId,
        State: state,
        ConnectivityType: connectivity,
        ...(life?.createTime ? { CreateTime: new Date(life.createTime) } : {}),
        ...(life?.deleteTime ? { DeleteTime: new Date(life.deleteTime) } : {}),
        ...(life?.failureCode ? { FailureCode: life.failureCode, FailureMessage: life.failureMessage } : {}),
        NatGatewayAddresses: addressRow ? [addressRow] : [],
        Tags: Array.isArray(m.Tags) ? (m.Tags as Tag[]) : [],
      };
    };
    const live = new Set<string>();
    for (const m of models(ctx, 'AWS::EC2::NatGateway')) {
      if (typeof m.NatGatewayId !== 'string') continue;
      live.add(m.NatGatewayId);
      out.push(build(m, store.natGateways.get(key(ctx, m.NatGatewayId))));
    }
    const prefix = key(ctx, '');
    for (const [k, life] of store.natGateways)
      if (k.startsWith(prefix) && life.model && !live.has(k.slice(prefix.length)))
        out.push(build(life.model, life));
    return out.sort((a, b) => a.NatGatewayId.localeCompare(b.NatGatewayId));
  };

  /** Who holds each allocation id: associations, and gateways that are not yet deleted. */
  const holders = (ctx: CallContext): Map<string, Holder> => {
    const out = new Map<string, Holder>();
    for (const a of models(ctx, 'AWS::EC2::EIPAssociation'))
      if (typeof a.AllocationId === 'string' && typeof a.Id === 'string')
        out.set(a.AllocationId, {
          AssociationId: a.Id,
          InstanceId: str(a.InstanceId),
          NetworkInterfaceId: str(a.NetworkInterfaceId),
          PrivateIpAddress: str(a.PrivateIpAddress),
          associationResource: a.Id,
        });
    for (const g of gateways(ctx))
      for (const row of g.NatGatewayAddresses)
        if (typeof row.AllocationId === 'string')
          out.set(row.AllocationId, {
            AssociationId: String(row.AssociationId),
            NetworkInterfaceId: str(row.NetworkInterfaceId),
            PrivateIpAddress: str(row.PrivateIp),
            natGatewayId: g.NatGatewayId,
          });
    return out;
  };

  const addresses = (ctx: CallContext): Address[] => {
    const held = holders(ctx);
    return models(ctx, 'AWS::EC2::EIP')
      .filter((m) => typeof m.AllocationId === 'string')
      .map((m) => ({
        AllocationId: String(m.AllocationId),
        PublicIp: String(m.PublicIp),
        Domain: 'vpc' as const,
        NetworkBorderGroup: str(m.NetworkBorderGroup) ?? ctx.region,
        PublicIpv4Pool: 'amazon' as const,
        Tags: Array.isArray(m.Tags) ? (m.Tags as Tag[]) : [],
        holder: held.get(String(m.AllocationId)),
      }))
      .sort((a, b) => a.AllocationId.localeCompare(b.AllocationId));
  };

  const addressOrFail = (ctx: CallContext, input: Input): Address => {
    const allocationId = str(input.AllocationId);
    const publicIp = str(input.PublicIp);
    if (!allocationId && !publicIp)
      throw fail('MissingParameter', 'The request must contain the parameter AllocationId');
    const found = addresses(ctx).find((a) =>
      allocationId ? a.AllocationId === allocationId : a.PublicIp === publicIp,
    );
    if (!found)
      throw allocationId
        ? fail('InvalidAllocationID.NotFound', `The allocation ID '${allocationId}' does not exist`)
        : fail('InvalidAddress.NotFound', `The address '${publicIp}' does not belong to you.`);
    return found;
  };

  const output = (a: Address) => ({
    AllocationId: a.AllocationId,
    PublicIp: a.PublicIp,
    Domain: a.Domain,
    NetworkBorderGroup: a.NetworkBorderGroup,
    PublicIpv4Pool: a.PublicIpv4Pool,
    Tags: a.Tags,
    ...(a.holder
      ? {
          AssociationId: a.holder.AssociationId,
          InstanceId: a.holder.InstanceId,
          NetworkInterfaceId: a.holder.NetworkInterfaceId,
          PrivateIpAddress: a.holder.PrivateIpAddress,
        }
      : {}),
  });

  /** Moves the lifecycle states a Describe has now shown on to the next one. */
  const advance = (ctx: CallContext, shown: NatGateway[]) => {
    for (const g of shown) {
      const life = store.natGateways.get(key(ctx, g.NatGatewayId));
      if (life?.state === 'pending') life.state = 'available';
      else if (life?.state === 'deleting') life.state = 'deleted';
    }
  };

  return {
    AllocateAddress: (ctx, input: Input) => {
      const domain = str(input.Domain) ?? 'vpc';
      if (domain !== 'vpc') throw fail('InvalidParameterValue', `Invalid value '${domain}' for domain.`);
      if (input.Address !== undefined)
        throw fail('InvalidAddress.NotFound', `Address ${String(input.Address)} not found.`);
      const tags = tagsFor(input, 'elastic-ip');
      dryRun(input);
      const { model } = resources().create(ctx.account, ctx.region, 'AWS::EC2::EIP', {
        Domain: 'vpc',
        ...(tags.length ? { Tags: tags } : {}),
      });
      return {
        AllocationId: model.AllocationId,
        PublicIp: model.PublicIp,
        Domain: 'vpc',
        NetworkBorderGroup: ctx.region,
        PublicIpv4Pool: 'amazon',
      };
    },

    ReleaseAddress: (ctx, input: Input) => {
      const address = addressOrFail(ctx, input);
      dryRun(input);
      // A nondefault VPC's address must be disassociated first (a NAT gateway's: the gateway deleted).
      if (address.holder) throw fail('InvalidIPAddress.InUse', `Address ${address.AllocationId} is in use.`);
      resources().remove(
        ctx.account,
        ctx.region,
        'AWS::EC2::EIP',
        `${address.PublicIp}|${address.AllocationId}`,
      );
      return {};
    },

    DescribeAddresses: (ctx, input: Input) => {
      dryRun(input);
      let list = selectIds(
        addresses(ctx),
        input.AllocationIds as string[] | undefined,
        (a) => a.AllocationId,
        {
          code: 'InvalidAllocationID.NotFound',
          noun: 'allocation',
        },
      );
      const ips = input.PublicIps as string[] | undefined;
      if (ips?.length) {
        const missing = ips.find((ip) => !list.some((a) => a.PublicIp === ip));
        if (missing) throw fail('InvalidAddress.NotFound', `Address '${missing}' not found.`);
        list = list.filter((a) => ips.includes(a.PublicIp));
      }
      return { Addresses: applyFilters(list, input.Filters, ADDRESS_FILTERS, (a) => a.Tags).map(output) };
    },

    AssociateAddress: (ctx, input: Input) => {
      const address = addressOrFail(ctx, input);
      const instanceId = str(input.InstanceId);
      const eniId = str(input.NetworkInterfaceId);
      if (!instanceId && !eniId)
        throw fail('MissingParameter', 'Either instance ID or network interface ID must be specified.');
      if (instanceId && !models(ctx, 'AWS::EC2::Instance').some((i) => i.InstanceId === instanceId))
        throw fail('InvalidInstanceID.NotFound', `The instance ID '${instanceId}' does not exist`);
      if (eniId && !models(ctx, 'AWS::EC2::NetworkInterface').some((n) => n.Id === eniId))
        throw fail('InvalidNetworkInterfaceID.NotFound', `The networkInterface ID '${eniId}' does not exist`);
      const holder = address.holder;
      if (holder && (holder.natGatewayId || input.AllowReassociation !== true))
        throw fail(
          'Resource.AlreadyAssociated',
          `resource ${address.AllocationId} is already associated with associate-id ${holder.AssociationId}`,
        );
      dryRun(input);
      if (holder?.associationResource)
        resources().remove(ctx.account, ctx.region, 'AWS::EC2::EIPAssociation', holder.associationResource);
      const { identifier } = resources().create(ctx.account, ctx.region, 'AWS::EC2::EIPAssociation', {
        AllocationId: address.AllocationId,
        ...(instanceId ? { InstanceId: instanceId } : {}),
        ...(eniId ? { NetworkInterfaceId: eniId } : {}),
        ...(str(input.PrivateIpAddress) ? { PrivateIpAddress: input.PrivateIpAddress } : {}),
      });
      return { AssociationId: identifier };
    },

    DisassociateAddress: (ctx, input: Input) => {
      const associationId = str(input.AssociationId);
      if (!associationId)
        throw fail('MissingParameter', 'The request must contain the parameter AssociationId');
      const holder = [...holders(ctx).values()].find((h) => h.AssociationId === associationId);
      if (!holder)
        throw fail('InvalidAssociationID.NotFound', `The association ID '${associationId}' does not exist`);
      // A NAT gateway's address leaves with the gateway (or DisassociateNatGatewayAddress).
      if (!holder.associationResource)
        throw fail(
          'InvalidIPAddress.InUse',
          `Address association ${associationId} belongs to NAT gateway ${holder.natGatewayId}.`,
        );
      dryRun(input);
      resources().remove(ctx.account, ctx.region, 'AWS::EC2::EIPAssociation', holder.associationResource);
      return {};
    },

    CreateNatGateway: (ctx, input: Input) => {
      const subnetId = required(input, 'SubnetId');
      const subnet = subnets(ctx).find((s) => s.SubnetId === subnetId);
      if (!subnet) throw fail('InvalidSubnetID.NotFound', `The subnet ID '${subnetId}' does not exist`);
      const connectivity = str(input.ConnectivityType) ?? 'public';
      if (!['public', 'private'].includes(connectivity))
        throw fail('InvalidParameterValue', `Invalid value '${connectivity}' for ConnectivityType.`);
      const allocationId = str(input.AllocationId);
      if (connectivity === 'public' && !allocationId)
        throw fail('MissingParameter', 'The request must contain the parameter AllocationId');
      if (connectivity === 'private' && allocationId)
        throw fail(
          'InvalidParameterCombination',
          'AllocationId cannot be specified for a private NAT gateway.',
        );
      const tags = tagsFor(input, 'natgateway');
      dryRun(input);
      const desired = {
        SubnetId: subnetId,
        ConnectivityType: connectivity,
        ...(allocationId ? { AllocationId: allocationId } : {}),
        ...(str(input.PrivateIpAddress) ? { PrivateIpAddress: input.PrivateIpAddress } : {}),
        ...(tags.length ? { Tags: tags } : {}),
      };
      // What EC2 finds only once it builds the gateway: the gateway then fails (NatGateway.FailureCode).
      let failure: [string, string] | undefined;
      if (allocationId) {
        const address = addresses(ctx).find((a) => a.AllocationId === allocationId);
        if (!address)
          failure = [
            'InvalidAllocationID.NotFound',
            `Elastic IP address ${allocationId} could not be associated with this NAT gateway`,
          ];
        else if (address.holder)
          failure = [
            'Resource.AlreadyAssociated',
            `Elastic IP address ${allocationId} is already associated`,
          ];
        else if (
          !models(ctx, 'AWS::EC2::VPCGatewayAttachment').some(
            (a) => a.VpcId === subnet.VpcId && a.InternetGatewayId,
          )
        )
          failure = ['Gateway.NotAttached', `Network ${subnet.VpcId} has no Internet gateway attached`];
      }
      const now = Date.now();
      if (failure) {
        const id = derivedId('nat', `${ctx.account}|${ctx.region}|${now}|${Math.random()}`);
        store.natGateways.set(key(ctx, id), {
          state: 'failed',
          createTime: now,
          failureCode: failure[0],
          failureMessage: failure[1],
          model: { ...desired, NatGatewayId: id },
        });
        return { NatGateway: gateways(ctx).find((g) => g.NatGatewayId === id) };
      }
      const { identifier } = resources().create(ctx.account, ctx.region, 'AWS::EC2::NatGateway', desired);
      store.natGateways.set(key(ctx, identifier), { state: 'pending', createTime: now });
      return {
        ClientToken: str(input.ClientToken),
        NatGateway: gateways(ctx).find((g) => g.NatGatewayId === identifier),
      };
    },

    DeleteNatGateway: (ctx, input: Input) => {
      const id = required(input, 'NatGatewayId');
      const gateway = gateways(ctx).find((g) => g.NatGatewayId === id);
      if (!gateway || gateway.State === 'failed')
        throw fail('NatGatewayNotFound', `The Nat Gateway ${id} was not found`);
      dryRun(input);
      if (gateway.State === 'deleting' || gateway.State === 'deleted') return { NatGatewayId: id };
      const model = models(ctx, 'AWS::EC2::NatGateway').find((m) => m.NatGatewayId === id)!;
      const life = store.natGateways.get(key(ctx, id));
      resources().remove(ctx.account, ctx.region, 'AWS::EC2::NatGateway', id);
      store.natGateways.set(key(ctx, id), {
        state: 'deleting',
        createTime: life?.createTime,
        deleteTime: Date.now(),
        model: { ...model },
      });
      return { NatGatewayId: id };
    },

    DescribeNatGateways: (ctx, input: Input & { Filter?: Filter[] }) => {
      dryRun(input);
      const ids = input.NatGatewayIds as string[] | undefined;
      const all = gateways(ctx);
      const missing = ids?.find((id) => !all.some((g) => g.NatGatewayId === id));
      if (missing) throw fail('NatGatewayNotFound', `NAT gateway ${missing} was not found`);
      const selected = ids?.length ? all.filter((g) => ids.includes(g.NatGatewayId)) : all;
      // DescribeNatGateways names its filter list `Filter`.
      const filtered = applyFilters(selected, input.Filter ?? input.Filters, NAT_FILTERS, (g) => g.Tags);
      const { items, nextToken } = page(filtered, input, { min: 5, max: 1000 });
      const answer = { NatGateways: items.map((g) => ({ ...g })), NextToken: nextToken };
      advance(ctx, items);
      return answer;
    },
  };
}
