/**
 * Security groups and their rules: DescribeSecurityGroups and
 * Authorize/RevokeSecurityGroupIngress/Egress (what CDK's
 * `restrictDefaultSecurityGroup` handler calls), as the EC2 API reference
 * documents them.
 *
 * The groups are the ones EC2 makes with every VPC (the `default` group:
 * all traffic in from members of itself, all traffic out to 0.0.0.0/0) and
 * the AWS::EC2::SecurityGroup resources Cloud Control keeps, with the rules
 * their models and AWS::EC2::SecurityGroupIngress/Egress resources give.
 * Rules changed through the native calls are kept here as additions and
 * revocations on top of that base, so a group is read the same way however
 * it was made (Cloud Control's own read-back of a group does not show them).
 */
import { AwsError } from '../../core/errors';
import type { CallContext, Operations } from '../../core/service';
import { applyFilters, page, selectIds, type Filter, type FilterFields, type Tag } from './filters';
import { derivedId, network, type Models } from './network';
import type { Ec2Store } from './store';
import type { CloudControlResourcesApi } from '../cloudcontrol/resources-api';

type Direction = 'ingress' | 'egress';

/** One rule: a protocol and port range to or from one peer. */
interface Rule {
  protocol: string;
  from?: number;
  to?: number;
  peer: { kind: 'cidr' | 'cidr6' | 'prefixList' | 'group'; value: string; userId?: string };
  description?: string;
}

interface Group {
  GroupId: string;
  GroupName: string;
  Description: string;
  VpcId: string;
  OwnerId: string;
  Tags: Tag[];
  base: Record<Direction, Rule[]>;
}

interface IpPermission {
  IpProtocol?: string;
  FromPort?: number;
  ToPort?: number;
  IpRanges?: { CidrIp?: string; Description?: string }[];
  Ipv6Ranges?: { CidrIpv6?: string; Description?: string }[];
  PrefixListIds?: { PrefixListId?: string; Description?: string }[];
  UserIdGroupPairs?: { GroupId?: string; UserId?: string; Description?: string }[];
}

interface RuleChangeInput {
  GroupId?: string;
  GroupName?: string;
  IpPermissions?: IpPermission[];
  // The legacy flat form (one rule).
  IpProtocol?: string;
  FromPort?: number;
  ToPort?: number;
  CidrIp?: string;
  SourceSecurityGroupName?: string;
  DryRun?: boolean;
}

/** The rules added and revoked through the native API, per group. */
export interface Changes {
  added: Record<Direction, Rule[]>;
  revoked: Record<Direction, string[]>;
}

const PROTOCOLS: Record<string, string> = {
  '-1': '-1',
  all: '-1',
  tcp: 'tcp',
  '6': 'tcp',
  udp: 'udp',
  '17': 'udp',
  icmp: 'icmp',
  '1': 'icmp',
  icmpv6: 'icmpv6',
  '58': 'icmpv6',
};

function protocolOf(raw: unknown): string {
  const text = String(raw ?? '').toLowerCase();
  const known = PROTOCOLS[text];
  if (known) return known;
  if (/^\d+$/.test(text) && Number(text) <= 255) return text;
  throw new AwsError(
    'InvalidParameterValue',
    `Invalid value '${String(raw)}' for IP protocol. Unknown protocol.`,
    400,
  );
}

function portsOf(protocol: string, from: unknown, to: unknown): { from?: number; to?: number } {
  if (protocol === '-1') return {};
  const f = from === undefined || from === null ? undefined : Number(from);
  const t = to === undefined || to === null ? undefined : Number(to);
  if (protocol === 'tcp' || protocol === 'udp') {
    if (f === undefined || t === undefined)
      throw new AwsError(
        'InvalidParameterValue',
        "Invalid value 'Must specify both from and to ports with TCP/UDP.' for portRange",
        400,
      );
    if (f < 0 || t > 65535 || f > t)
      throw new AwsError(
        'InvalidParameterValue',
        `Invalid value 'Invalid TCP/UDP port range' for portRange`,
        400,
      );
  }
  return { from: f, to: t };
}

/** What makes two rules the same rule (descriptions do not). */
function ruleKey(r: Rule): string {
  return [r.protocol, r.from ?? '', r.to ?? '', r.peer.kind, r.peer.value].join('|');
}

/** The default group's rules (EC2 user guide, "Default security groups for your VPCs"). */
function defaultRules(groupId: string, account: string): Record<Direction, Rule[]> {
  return {
    ingress: [{ protocol: '-1', peer: { kind: 'group', value: groupId, userId: account } }],
    egress: [{ protocol: '-1', peer: { kind: 'cidr', value: '0.0.0.0/0' } }],
  };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** A rule as a CloudFormation model writes it (SecurityGroupIngress/Egress entries or resources). */
function ruleOfModel(m: Record<string, unknown>, direction: Direction, account: string): Rule | undefined {
  let protocol: string;
  try {
    protocol = protocolOf(m.IpProtocol);
  } catch {
    return undefined;
  }
  const { from, to } =
    protocol === '-1' ? {} : { from: m.FromPort as number | undefined, to: m.ToPort as number | undefined };
  const group = str(direction === 'ingress' ? m.SourceSecurityGroupId : m.DestinationSecurityGroupId);
  const prefixList = str(direction === 'ingress' ? m.SourcePrefixListId : m.DestinationPrefixListId);
  const peer: Rule['peer'] | undefined = str(m.CidrIp)
    ? { kind: 'cidr', value: str(m.CidrIp)! }
    : str(m.CidrIpv6)
      ? { kind: 'cidr6', value: str(m.CidrIpv6)! }
      : group
        ? { kind: 'group', value: group, userId: str(m.SourceSecurityGroupOwnerId) ?? account }
        : prefixList
          ? { kind: 'prefixList', value: prefixList }
          : undefined;
  return peer && { protocol, from, to, peer, description: str(m.Description) };
}

/** Every group in one account and region, in id order. */
function groupsHere(account: string, region: string, models: Models): Group[] {
  const groups: Group[] = [];
  const vpcModels = new Map(models('AWS::EC2::VPC').map((m) => [str(m.VpcId), m]));
  for (const vpc of network(account, region, models).vpcs) {
    const id = str(vpcModels.get(vpc.VpcId)?.DefaultSecurityGroup) ?? derivedId('sg', `${vpc.VpcId}|default`);
    groups.push({
      GroupId: id,
      GroupName: 'default',
      Description: 'default VPC security group',
      VpcId: vpc.VpcId,
      OwnerId: account,
      Tags: [],
      base: defaultRules(id, account),
    });
  }
  const standalone = (type: string, direction: Direction) =>
    models(type).map((m) => ({ groupId: str(m.GroupId), rule: ruleOfModel(m, direction, account) }));
  const extra = [
    ...standalone('AWS::EC2::SecurityGroupIngress', 'ingress').map((r) => ({
      ...r,
      direction: 'ingress' as const,
    })),
    ...standalone('AWS::EC2::SecurityGroupEgress', 'egress').map((r) => ({
      ...r,
      direction: 'egress' as const,
    })),
  ];
  for (const m of models('AWS::EC2::SecurityGroup')) {
    const id = str(m.GroupId);
    if (!id) continue;
    const listed = (v: unknown, d: Direction) =>
      (Array.isArray(v) ? (v as Record<string, unknown>[]) : [])
        .map((e) => ruleOfModel(e, d, account))
        .filter((r): r is Rule => !!r);
    const egress = listed(m.SecurityGroupEgress, 'egress');
    const base = {
      ingress: listed(m.SecurityGroupIngress, 'ingress'),
      // A group made without egress rules allows all traffic out, as EC2 makes it.
      egress:
        egress.length || extra.some((e) => e.groupId === id && e.direction === 'egress')
          ? egress
          : defaultRules(id, account).egress,
    };
    for (const e of extra) if (e.groupId === id && e.rule) base[e.direction].push(e.rule);
    groups.push({
      GroupId: id,
      GroupName: str(m.GroupName) ?? id,
      Description: str(m.GroupDescription) ?? '',
      VpcId: str(m.VpcId) ?? network(account, region, models).vpcs.find((v) => v.IsDefault)!.VpcId,
      OwnerId: account,
      Tags: Array.isArray(m.Tags) ? (m.Tags as Tag[]) : [],
      base,
    });
  }
  return groups.sort((a, b) => a.GroupId.localeCompare(b.GroupId));
}

const noChanges = (): Changes => ({
  added: { ingress: [], egress: [] },
  revoked: { ingress: [], egress: [] },
});

function rulesOf(group: Group, changes: Changes | undefined, direction: Direction): Rule[] {
  const revoked = new Set(changes?.revoked[direction] ?? []);
  const seen = new Set<string>();
  return [...group.base[direction], ...(changes?.added[direction] ?? [])].filter((r) => {
    const key = ruleKey(r);
    if (revoked.has(key) || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Rules grouped into EC2's IpPermissions (one per protocol and port range). */
function permissionsOf(rules: Rule[]): IpPermission[] {
  const byRange = new Map<string, IpPermission>();
  for (const r of rules) {
    const k = [r.protocol, r.from ?? '', r.to ?? ''].join('|');
    let p = byRange.get(k);
    if (!p) {
      p = {
        IpProtocol: r.protocol,
        FromPort: r.from,
        ToPort: r.to,
        IpRanges: [],
        Ipv6Ranges: [],
        PrefixListIds: [],
        UserIdGroupPairs: [],
      };
      byRange.set(k, p);
    }
    const d = r.description ? { Description: r.description } : {};
    if (r.peer.kind === 'cidr') p.IpRanges!.push({ CidrIp: r.peer.value, ...d });
    else if (r.peer.kind === 'cidr6') p.Ipv6Ranges!.push({ CidrIpv6: r.peer.value, ...d });
    else if (r.peer.kind === 'prefixList') p.PrefixListIds!.push({ PrefixListId: r.peer.value, ...d });
    else p.UserIdGroupPairs!.push({ GroupId: r.peer.value, UserId: r.peer.userId, ...d });
  }
  return [...byRange.values()];
}

/** The rules a request names, each checked as EC2 checks it. */
function requestedRules(input: RuleChangeInput, account: string, known: (id: string) => boolean): Rule[] {
  const permissions: IpPermission[] = input.IpPermissions?.length
    ? input.IpPermissions
    : input.IpProtocol !== undefined
      ? [
          {
            IpProtocol: input.IpProtocol,
            FromPort: input.FromPort,
            ToPort: input.ToPort,
            IpRanges: input.CidrIp ? [{ CidrIp: input.CidrIp }] : [],
          },
        ]
      : [];
  if (!permissions.length)
    throw new AwsError('MissingParameter', 'The request must contain the parameter ipPermissions', 400);
  const rules: Rule[] = [];
  for (const p of permissions) {
    const protocol = protocolOf(p.IpProtocol);
    const ports = portsOf(protocol, p.FromPort, p.ToPort);
    const add = (peer: Rule['peer'], description?: string) =>
      rules.push({ protocol, ...ports, peer, description });
    for (const r of p.IpRanges ?? []) {
      if (!/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/.test(r.CidrIp ?? ''))
        throw new AwsError('InvalidParameterValue', `CIDR block ${r.CidrIp ?? ''} is malformed`, 400);
      add({ kind: 'cidr', value: r.CidrIp! }, r.Description);
    }
    for (const r of p.Ipv6Ranges ?? []) add({ kind: 'cidr6', value: r.CidrIpv6 ?? '' }, r.Description);
    for (const r of p.PrefixListIds ?? [])
      add({ kind: 'prefixList', value: r.PrefixListId ?? '' }, r.Description);
    for (const r of p.UserIdGroupPairs ?? []) {
      if (!r.GroupId || !known(r.GroupId))
        throw new AwsError(
          'InvalidGroup.NotFound',
          `The security group '${r.GroupId ?? ''}' does not exist`,
          400,
        );
      add({ kind: 'group', value: r.GroupId, userId: r.UserId ?? account }, r.Description);
    }
    if (
      !p.IpRanges?.length &&
      !p.Ipv6Ranges?.length &&
      !p.PrefixListIds?.length &&
      !p.UserIdGroupPairs?.length
    )
      throw new AwsError(
        'InvalidParameterValue',
        'The request must contain at least one source or destination for a rule',
        400,
      );
  }
  return rules;
}

function ruleOutput(group: Group, direction: Direction, r: Rule): Record<string, unknown> {
  return {
    SecurityGroupRuleId: derivedId('sgr', `${group.GroupId}|${direction}|${ruleKey(r)}`),
    GroupId: group.GroupId,
    GroupOwnerId: group.OwnerId,
    IsEgress: direction === 'egress',
    IpProtocol: r.protocol,
    FromPort: r.from ?? -1,
    ToPort: r.to ?? -1,
    ...(r.peer.kind === 'cidr' ? { CidrIpv4: r.peer.value } : {}),
    ...(r.peer.kind === 'cidr6' ? { CidrIpv6: r.peer.value } : {}),
    ...(r.peer.kind === 'prefixList' ? { PrefixListId: r.peer.value } : {}),
    ...(r.peer.kind === 'group'
      ? { ReferencedGroupInfo: { GroupId: r.peer.value, UserId: r.peer.userId } }
      : {}),
    ...(r.description ? { Description: r.description } : {}),
  };
}

const SG_FILTERS: FilterFields<Group> = {
  description: (g) => g.Description,
  'group-id': (g) => g.GroupId,
  'group-name': (g) => g.GroupName,
  'owner-id': (g) => g.OwnerId,
  'vpc-id': (g) => g.VpcId,
};

function dryRun(input: { DryRun?: boolean }): void {
  if (input.DryRun)
    throw new AwsError('DryRunOperation', 'Request would have succeeded, but DryRun flag is set.', 412);
}

/**
 * The group a call names: by `GroupId` (checked for shape), or by
 * `GroupName`, which addresses a group of the default VPC only.
 */
function addressedGroup(
  groups: Group[],
  input: { GroupId?: string; GroupName?: string },
  ctx: CallContext,
  models: Models,
): Group {
  if (input.GroupId !== undefined) {
    if (!/^sg-[0-9a-f]{8}([0-9a-f]{9})?$/.test(input.GroupId))
      throw new AwsError(
        'InvalidGroupId.Malformed',
        `Invalid id: "${input.GroupId}" (expecting "sg-...")`,
        400,
      );
    const group = groups.find((g) => g.GroupId === input.GroupId);
    if (!group)
      throw new AwsError(
        'InvalidGroup.NotFound',
        `The security group '${input.GroupId}' does not exist`,
        400,
      );
    return group;
  }
  if (input.GroupName !== undefined) {
    const defaultVpc = network(ctx.account, ctx.region, models).vpcs.find((v) => v.IsDefault)?.VpcId;
    const group = groups.find((g) => g.GroupName === input.GroupName && g.VpcId === defaultVpc);
    if (!group)
      throw new AwsError(
        'InvalidGroup.NotFound',
        `The security group '${input.GroupName}' does not exist in default VPC '${defaultVpc}'`,
        400,
      );
    return group;
  }
  throw new AwsError('MissingParameter', 'The request must contain the parameter groupId', 400);
}

/** DescribeSecurityGroups and the four rule calls, reading Cloud Control's models at each call. */
export function securityGroupOperations(
  store: Pick<Ec2Store, 'changes'>,
  models: (account: string, region: string, typeName: string) => Record<string, unknown>[],
): Operations {
  const here = (ctx: CallContext) =>
    groupsHere(ctx.account, ctx.region, (t) => models(ctx.account, ctx.region, t));
  const changesKey = (ctx: CallContext, id: string) => `${ctx.account}|${ctx.region}|${id}`;

  const target = (ctx: CallContext, input: RuleChangeInput): { group: Group; groups: Group[] } => {
    const groups = here(ctx);
    return { group: addressedGroup(groups, input, ctx, (t) => models(ctx.account, ctx.region, t)), groups };
  };

  const authorize = (direction: Direction) => (ctx: CallContext, input: RuleChangeInput) => {
    const { group, groups } = target(ctx, input);
    const rules = requestedRules(input, ctx.account, (id) => groups.some((g) => g.GroupId === id));
    dryRun(input);
    const key = changesKey(ctx, group.GroupId);
    const changes = store.changes.get(key) ?? noChanges();
    const existing = new Set(rulesOf(group, changes, direction).map(ruleKey));
    for (const r of rules)
      if (existing.has(ruleKey(r)))
        throw new AwsError(
          'InvalidPermission.Duplicate',
          `the specified rule "peer: ${r.peer.value}, ${r.protocol === '-1' ? 'ALL' : r.protocol.toUpperCase()}, ${r.from !== undefined ? `from port: ${r.from}, to port: ${r.to}, ` : ''}ALLOW" already exists`,
          400,
        );
    for (const r of rules) {
      const k = ruleKey(r);
      changes.revoked[direction] = changes.revoked[direction].filter((x) => x !== k);
      if (!group.base[direction].some((b) => ruleKey(b) === k)) changes.added[direction].push(r);
    }
    store.changes.set(key, changes);
    return { Return: true, SecurityGroupRules: rules.map((r) => ruleOutput(group, direction, r)) };
  };

  const revoke = (direction: Direction) => (ctx: CallContext, input: RuleChangeInput) => {
    const { group, groups } = target(ctx, input);
    const rules = requestedRules(input, ctx.account, (id) => groups.some((g) => g.GroupId === id));
    dryRun(input);
    const key = changesKey(ctx, group.GroupId);
    const changes = store.changes.get(key) ?? noChanges();
    const current = new Set(rulesOf(group, changes, direction).map(ruleKey));
    const found = rules.filter((r) => current.has(ruleKey(r)));
    const unknown = rules.filter((r) => !current.has(ruleKey(r)));
    // None of the rules exists: EC2 refuses; some do: they go, the others are reported back.
    if (!found.length)
      throw new AwsError(
        'InvalidPermission.NotFound',
        'The specified rule does not exist in this security group.',
        400,
      );
    for (const r of found) {
      const k = ruleKey(r);
      changes.added[direction] = changes.added[direction].filter((x) => ruleKey(x) !== k);
      if (group.base[direction].some((b) => ruleKey(b) === k)) changes.revoked[direction].push(k);
    }
    store.changes.set(key, changes);
    return {
      Return: true,
      ...(unknown.length ? { UnknownIpPermissions: permissionsOf(unknown) } : {}),
      RevokedSecurityGroupRules: found.map((r) => ({
        SecurityGroupRuleId: derivedId('sgr', `${group.GroupId}|${direction}|${ruleKey(r)}`),
        GroupId: group.GroupId,
        IsEgress: direction === 'egress',
        IpProtocol: r.protocol,
        FromPort: r.from ?? -1,
        ToPort: r.to ?? -1,
      })),
    };
  };

  return {
    DescribeSecurityGroups: (
      ctx: CallContext,
      input: {
        GroupIds?: string[];
        GroupNames?: string[];
        Filters?: Filter[];
        MaxResults?: number;
        NextToken?: string;
        DryRun?: boolean;
      },
    ) => {
      dryRun(input);
      for (const id of input.GroupIds ?? [])
        if (!/^sg-[0-9a-f]{8}([0-9a-f]{9})?$/.test(id))
          throw new AwsError('InvalidGroupId.Malformed', `Invalid id: "${id}" (expecting "sg-...")`, 400);
      let groups = selectIds(here(ctx), input.GroupIds, (g) => g.GroupId, {
        code: 'InvalidGroup.NotFound',
        noun: 'security group',
      });
      if (input.GroupNames?.length) {
        const names = input.GroupNames;
        const missing = names.find((n) => !groups.some((g) => g.GroupName === n));
        if (missing)
          throw new AwsError(
            'InvalidGroup.NotFound',
            `The security group '${missing}' does not exist in default VPC`,
            400,
          );
        groups = groups.filter((g) => names.includes(g.GroupName));
      }
      const filtered = applyFilters(groups, input.Filters, SG_FILTERS, (g) => g.Tags);
      const { items, nextToken } = page(filtered, input, { min: 5, max: 1000 });
      return {
        SecurityGroups: items.map((g) => {
          const changes = store.changes.get(changesKey(ctx, g.GroupId));
          return {
            GroupId: g.GroupId,
            GroupName: g.GroupName,
            Description: g.Description,
            VpcId: g.VpcId,
            OwnerId: g.OwnerId,
            SecurityGroupArn: `arn:aws:ec2:${ctx.region}:${ctx.account}:security-group/${g.GroupId}`,
            IpPermissions: permissionsOf(rulesOf(g, changes, 'ingress')),
            IpPermissionsEgress: permissionsOf(rulesOf(g, changes, 'egress')),
            Tags: g.Tags,
          };
        }),
        NextToken: nextToken,
      };
    },
    AuthorizeSecurityGroupIngress: authorize('ingress'),
    AuthorizeSecurityGroupEgress: authorize('egress'),
    RevokeSecurityGroupIngress: revoke('ingress'),
    RevokeSecurityGroupEgress: revoke('egress'),
  };
}

/**
 * CreateSecurityGroup / DeleteSecurityGroup: a group made here is Cloud
 * Control's AWS::EC2::SecurityGroup record (identifier: its group id), so
 * Describe, Cloud Control and the inventory see it; a VPC's default group
 * cannot be deleted, nor a group another group's rule or an interface uses.
 */
export function securityGroupLifecycleOperations(
  store: Pick<Ec2Store, 'changes'>,
  resources: () => CloudControlResourcesApi,
): Operations {
  const models = (ctx: CallContext, type: string) => resources().models(ctx.account, ctx.region, type);
  const here = (ctx: CallContext) => groupsHere(ctx.account, ctx.region, (t) => models(ctx, t));
  const changesKey = (ctx: CallContext, id: string) => `${ctx.account}|${ctx.region}|${id}`;
  const invalid = (message: string) => new AwsError('InvalidParameterValue', message, 400);

  return {
    CreateSecurityGroup: (
      ctx: CallContext,
      input: {
        GroupName?: string;
        Description?: string;
        VpcId?: string;
        TagSpecifications?: { ResourceType?: string; Tags?: Tag[] }[];
        DryRun?: boolean;
      },
    ) => {
      const name = str(input.GroupName);
      if (!name)
        throw new AwsError('MissingParameter', 'The request must contain the parameter groupName', 400);
      const description = str(input.Description);
      if (!description)
        throw new AwsError(
          'MissingParameter',
          'The request must contain the parameter groupDescription',
          400,
        );
      if (name.length > 255)
        throw invalid(`Invalid value '${name}' for groupName. Length exceeds maximum of 255.`);
      if (description.length > 255)
        throw invalid('Invalid value for groupDescription. Length exceeds maximum of 255.');
      if (/^sg-/i.test(name)) throw invalid(`Group names may not be in the format sg-*.`);
      const vpcs = network(ctx.account, ctx.region, (t) => models(ctx, t)).vpcs;
      const vpcId = input.VpcId ?? vpcs.find((v) => v.IsDefault)?.VpcId;
      if (!vpcId || !vpcs.some((v) => v.VpcId === vpcId))
        throw new AwsError(
          'InvalidVpcID.NotFound',
          `The vpc ID '${String(input.VpcId)}' does not exist`,
          400,
        );
      if (name === 'default')
        throw new AwsError('InvalidGroup.Reserved', `The security group 'default' is reserved`, 400);
      if (here(ctx).some((g) => g.VpcId === vpcId && g.GroupName === name))
        throw new AwsError(
          'InvalidGroup.Duplicate',
          `The security group '${name}' already exists for VPC '${vpcId}'`,
          400,
        );
      const tags: Tag[] = [];
      for (const spec of input.TagSpecifications ?? []) {
        if (spec.ResourceType !== 'security-group')
          throw invalid(
            `'${spec.ResourceType ?? ''}' is not a valid taggable resource type for this operation.`,
          );
        tags.push(...(spec.Tags ?? []).map((t) => ({ Key: t.Key, Value: t.Value ?? '' })));
      }
      dryRun(input);
      const { model } = resources().create(ctx.account, ctx.region, 'AWS::EC2::SecurityGroup', {
        GroupName: name,
        GroupDescription: description,
        VpcId: vpcId,
        ...(tags.length ? { Tags: tags } : {}),
      });
      const groupId = String(model.GroupId);
      return {
        GroupId: groupId,
        Tags: tags,
        SecurityGroupArn: `arn:aws:ec2:${ctx.region}:${ctx.account}:security-group/${groupId}`,
      };
    },

    DeleteSecurityGroup: (
      ctx: CallContext,
      input: { GroupId?: string; GroupName?: string; DryRun?: boolean },
    ) => {
      const groups = here(ctx);
      const group = addressedGroup(groups, input, ctx, (t) => models(ctx, t));
      const id = group.GroupId;
      const model = models(ctx, 'AWS::EC2::SecurityGroup').find((m) => m.GroupId === id);
      if (!model)
        throw new AwsError(
          'CannotDelete',
          `the specified group: "${id}" name: "${group.GroupName}" cannot be deleted by a user`,
          400,
        );
      const referencedBy = groups.find(
        (g) =>
          g.GroupId !== id &&
          (['ingress', 'egress'] as const).some((d) =>
            rulesOf(g, store.changes.get(changesKey(ctx, g.GroupId)), d).some(
              (r) => r.peer.kind === 'group' && r.peer.value === id,
            ),
          ),
      );
      const usedBy = (type: string, ...props: string[]) =>
        models(ctx, type).some((m) =>
          props.some((p) => Array.isArray(m[p]) && (m[p] as unknown[]).includes(id)),
        );
      if (
        referencedBy ||
        usedBy('AWS::EC2::Instance', 'SecurityGroupIds', 'SecurityGroups') ||
        usedBy('AWS::EC2::NetworkInterface', 'GroupSet')
      )
        throw new AwsError('DependencyViolation', `resource ${id} has a dependent object`, 400);
      dryRun(input);
      resources().remove(ctx.account, ctx.region, 'AWS::EC2::SecurityGroup', String(model.Id ?? id));
      store.changes.delete(changesKey(ctx, id));
      return { Return: true, GroupId: id };
    },
  };
}
