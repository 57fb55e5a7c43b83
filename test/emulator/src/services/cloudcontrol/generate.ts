/**
 * Plausible values for what AWS generates: read-only attributes (ARNs from the
 * type's ARN template, ids, URLs) and physical names a template left out.
 */
import { randomBytes } from 'node:crypto';
import { partitionOf } from '../../core/accounts';
import { upperAlnum, uuid } from '../../core/ids';
import type { ResourceScope } from '../../core/resources';
import { getAt, pointerPath, schemaAt, setAt, type ResourceSchema } from './schemas';

/** Where a resource is made. */
export type Scope = ResourceScope;

export { partitionOf };

/** `AWS::SNS::Topic` → `Topic`. */
export function resourcePart(typeName: string): string {
  return typeName.split('::').pop() ?? typeName;
}

/** A physical name as AWS generates one when a template gives none: `<Resource>-<RANDOM>`. */
export function generatedName(
  typeName: string,
  options: { lowercase?: boolean; maxLength?: number } = {},
): string {
  let name = `${resourcePart(typeName)}-${upperAlnum(12)}`;
  if (options.lowercase) name = name.toLowerCase();
  if (options.maxLength && name.length > options.maxLength)
    name = name.slice(name.length - options.maxLength);
  return name;
}

/** EC2-style id prefixes for well-known identifier properties. */
const ID_PREFIXES: Record<string, string> = {
  VpcId: 'vpc',
  SubnetId: 'subnet',
  GroupId: 'sg',
  RouteTableId: 'rtb',
  InternetGatewayId: 'igw',
  NatGatewayId: 'nat',
  AllocationId: 'eipalloc',
  NetworkAclId: 'acl',
  InstanceId: 'i',
  ImageId: 'ami',
  VolumeId: 'vol',
  NetworkInterfaceId: 'eni',
  TransitGatewayId: 'tgw',
  VpcEndpointId: 'vpce',
  LaunchTemplateId: 'lt',
  KeyPairId: 'key',
  PrefixListId: 'pl',
  DhcpOptionsId: 'dopt',
  EgressOnlyInternetGatewayId: 'eigw',
  VPCPeeringConnectionId: 'pcx',
  CustomerGatewayId: 'cgw',
  VPNGatewayId: 'vgw',
};

function hex(length: number): string {
  return randomBytes(Math.ceil(length / 2))
    .toString('hex')
    .slice(0, length);
}

/** A public IPv4 address from Amazon's 3.0.0.0/9 and 52.0.0.0/11 ranges. */
function publicIpv4(): string {
  const [a, b, c, d] = randomBytes(4);
  return a! % 2 ? `3.${b! % 128}.${c}.${(d! % 254) + 1}` : `52.${b! % 32}.${c}.${(d! % 254) + 1}`;
}

/** Fills `${Var}` of an ARN template from the model; undefined when a variable has no value. */
export function fillArnTemplate(
  template: string,
  model: Record<string, unknown>,
  scope: Scope,
): string | undefined {
  let missing = false;
  const arn = template.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
    const value = templateVariable(name, model, scope);
    if (value === undefined) missing = true;
    return value ?? '';
  });
  return missing ? undefined : arn;
}

function templateVariable(name: string, model: Record<string, unknown>, scope: Scope): string | undefined {
  if (name === 'Partition') return partitionOf(scope.region);
  if (name === 'Region') return scope.region;
  if (name === 'Account') return scope.account;
  const direct = model[name];
  if (typeof direct === 'string' || typeof direct === 'number') return String(direct);
  if (name.endsWith('WithoutLeadingSlash')) {
    const base = model[name.slice(0, -'WithoutLeadingSlash'.length)];
    return typeof base === 'string' ? base.replace(/^\//, '') : undefined;
  }
  if (name.endsWith('WithPath')) {
    const base = model[name.slice(0, -'WithPath'.length)];
    if (typeof base !== 'string') return undefined;
    const p = typeof model.Path === 'string' ? model.Path : '/';
    return `${p.replace(/^\//, '')}${base}`;
  }
  return undefined;
}

/** Names of writable properties the ARN template needs (e.g. `TopicName`). */
export function arnTemplateNameProperties(schema: ResourceSchema): string[] {
  if (!schema.arnTemplate) return [];
  const readOnly = new Set((schema.readOnlyProperties ?? []).map((p) => pointerPath(p)[0]));
  const names: string[] = [];
  for (const m of schema.arnTemplate.matchAll(/\$\{([^}]+)\}/g)) {
    let name = m[1]!;
    if (['Partition', 'Region', 'Account'].includes(name)) continue;
    if (name.endsWith('WithoutLeadingSlash')) name = name.slice(0, -'WithoutLeadingSlash'.length);
    else if (name.endsWith('WithPath')) name = name.slice(0, -'WithPath'.length);
    if (schema.properties?.[name] && !readOnly.has(name)) names.push(name);
  }
  return names;
}

/**
 * Fills in what AWS would: names absent from the primary identifier or ARN
 * template, then every read-only property.
 */
export function completeModel(
  schema: ResourceSchema,
  desired: Record<string, unknown>,
  scope: Scope,
): Record<string, unknown> {
  const model = structuredClone(desired);
  const readOnly = schema.readOnlyProperties ?? [];
  const readOnlyTop = new Set(readOnly.map((p) => pointerPath(p)[0]));
  const nameProps = physicalNameProperties(schema);
  for (const name of nameProps) {
    if (readOnlyTop.has(name) || model[name] !== undefined) continue;
    if (schemaAt(schema, [name])?.type !== 'string' && schemaAt(schema, [name])?.type !== undefined) continue;
    model[name] = generatedName(schema.typeName);
  }
  // ARNs last, so they can use generated ids.
  const pointers = [...readOnly].sort(
    (a, b) => Number(/Arn$/i.test(pointerPath(a).join('.'))) - Number(/Arn$/i.test(pointerPath(b).join('.'))),
  );
  for (const pointer of pointers) {
    const segments = pointerPath(pointer);
    if (segments.includes('*') || getAt(model, segments) !== undefined) continue;
    const value = readOnlyValue(schema, segments, model, scope, nameProps);
    if (value !== undefined) setAt(model, segments, value);
  }
  return model;
}

/**
 * The properties that name a resource physically: single-part primary
 * identifiers, the names an ARN template needs, and `<Resource>Name`
 * (`ServiceName` of `AWS::ECS::Service`): AWS generates one when a template
 * gives none, so no two resources share it.
 */
function physicalNameProperties(schema: ResourceSchema): Set<string> {
  const readOnly = new Set((schema.readOnlyProperties ?? []).map((p) => pointerPath(p)[0]));
  const own = `${resourcePart(schema.typeName)}Name`;
  return new Set([
    ...schema.primaryIdentifier
      .map((p) => pointerPath(p))
      .filter((s) => s.length === 1)
      .map((s) => s[0]!),
    ...arnTemplateNameProperties(schema),
    ...(schema.properties?.[own] && !readOnly.has(own) ? [own] : []),
  ]);
}

/** Default ports of database engines, for an endpoint's `Port` when the model gives none. */
const ENGINE_PORTS: Array<[RegExp, number]> = [
  [/postgres/i, 5432],
  [/mysql|mariadb|aurora/i, 3306],
  [/oracle/i, 1521],
  [/sqlserver/i, 1433],
  [/docdb|mongo/i, 27017],
  [/redis|valkey/i, 6379],
  [/memcached/i, 11211],
  [/redshift/i, 5439],
  [/neptune/i, 8182],
];

function portOf(model: Record<string, unknown>): number {
  const port = Number(model.Port);
  if (Number.isInteger(port) && port > 0) return port;
  const engine = String(model.Engine ?? model.EngineType ?? '');
  return ENGINE_PORTS.find(([re]) => re.test(engine))?.[1] ?? 443;
}

/** Attributes whose real shape the generic rules below would miss, by `<Type>.<attribute path>`. */
const ATTRIBUTE_SHAPES: Record<string, (model: Record<string, unknown>, scope: Scope) => unknown> = {
  // GetAtt Arn of a log group ends in ":*".
  'AWS::Logs::LogGroup.Arn': (m, s) =>
    `arn:${partitionOf(s.region)}:logs:${s.region}:${s.account}:log-group:${String(m.LogGroupName)}:*`,
  'AWS::IAM::Role.RoleId': () => `AROA${upperAlnum(17)}`,
  'AWS::IAM::User.UserId': () => `AIDA${upperAlnum(17)}`,
  'AWS::IAM::Group.GroupId': () => `AGPA${upperAlnum(17)}`,
  'AWS::IAM::InstanceProfile.InstanceProfileId': () => `AIPA${upperAlnum(17)}`,
  'AWS::IAM::ManagedPolicy.PolicyId': () => `ANPA${upperAlnum(17)}`,
  'AWS::DynamoDB::Table.StreamArn': (m, s) =>
    `arn:${partitionOf(s.region)}:dynamodb:${s.region}:${s.account}:table/${String(m.TableName)}/stream/${new Date().toISOString().replace(/Z$/, '')}`,
  // arn:aws:ecs:<region>:<account>:service/<cluster name>/<service name>; Name is the service's name.
  'AWS::ECS::Service.ServiceArn': (m, s) =>
    `arn:${partitionOf(s.region)}:ecs:${s.region}:${s.account}:service/${String(m.Cluster ?? 'default')
      .split('/')
      .pop()}/${String(m.ServiceName)}`,
  'AWS::ECS::Service.Name': (m) => m.ServiceName,
  // The groups and ACLs EC2 makes with a VPC (GetAtt DefaultSecurityGroup is a group id, not a name).
  'AWS::EC2::VPC.DefaultSecurityGroup': () => `sg-${hex(17)}`,
  'AWS::EC2::VPC.DefaultNetworkAcl': () => `acl-${hex(17)}`,
  // CloudFormation's documented values: IGW for an internet gateway, VPN for a virtual private gateway.
  'AWS::EC2::VPCGatewayAttachment.AttachmentType': (m) => (m.InternetGatewayId ? 'IGW' : 'VPN'),
  // A route's identifier part is its destination; an association's id is EC2's `rtbassoc-` id.
  'AWS::EC2::Route.CidrBlock': (m) => m.DestinationCidrBlock ?? m.DestinationIpv6CidrBlock,
  'AWS::EC2::SubnetRouteTableAssociation.Id': () => `rtbassoc-${hex(17)}`,
  // A VPC group's Ref (its Id) is its group id; an address is an IPv4 address, its association `eipassoc-`.
  'AWS::EC2::SecurityGroup.Id': (m) => m.GroupId ?? `sg-${hex(17)}`,
  'AWS::EC2::EIP.PublicIp': () => publicIpv4(),
  'AWS::EC2::EIPAssociation.Id': () => `eipassoc-${hex(17)}`,
  'AWS::EC2::NatGateway.EniId': () => `eni-${hex(17)}`,
  'AWS::Lambda::Function.SnapStartResponse.ApplyOn': () => 'None',
  'AWS::Lambda::Function.SnapStartResponse.OptimizationStatus': () => 'Off',
};

function readOnlyValue(
  schema: ResourceSchema,
  segments: string[],
  model: Record<string, unknown>,
  scope: Scope,
  nameProps: Set<string>,
): unknown {
  const shape = ATTRIBUTE_SHAPES[`${schema.typeName}.${segments.join('.')}`];
  if (shape) return shape(model, scope);
  const propSchema = schemaAt(schema, segments);
  const type = Array.isArray(propSchema?.type) ? propSchema?.type[0] : propSchema?.type;
  const name = segments[segments.length - 1]!;
  if (type === 'object' || type === 'array') return undefined;
  // A port is a port whatever its type: RDS's Endpoint.Port is a string, a cluster's Port an integer.
  if (name === 'Port') return type === 'string' ? String(portOf(model)) : portOf(model);
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return false;
  const part = resourcePart(schema.typeName);
  const service = schema.typeName.split('::')[1]!.toLowerCase();
  if (/Arn$/i.test(name)) {
    const fromTemplate =
      segments.length === 1 && schema.arnTemplate
        ? fillArnTemplate(schema.arnTemplate, model, scope)
        : undefined;
    return (
      fromTemplate ??
      `arn:${partitionOf(scope.region)}:${service}:${scope.region}:${scope.account}:${part.toLowerCase()}/${identifierHint(model, nameProps) ?? hex(17)}`
    );
  }
  const prefix = ID_PREFIXES[name];
  if (prefix) return `${prefix}-${hex(17)}`;
  if (/Id$/.test(name)) return `${part.toUpperCase().slice(0, 4)}${upperAlnum(17)}`;
  if (/(Url|URL|Uri|Endpoint|Address|DomainName|DnsName|DNSName)$/.test(name)) {
    const host = `${part.toLowerCase()}-${hex(8)}.${service}.${scope.region}.amazonaws.com`;
    return /(Url|URL|Uri)$/.test(name) ? `https://${host}` : host;
  }
  if (/Name$/.test(name)) return generatedName(schema.typeName);
  if (/(Time|Date)$/.test(name)) return new Date().toISOString();
  return `${part.toLowerCase()}-${uuid()}`;
}

/**
 * The resource's own name, for an ARN built without a template. Only names
 * of this resource qualify: a primary identifier part that refers to another
 * resource (an ECS service's `Cluster`) would give every sibling one ARN.
 */
function identifierHint(model: Record<string, unknown>, nameProps: Set<string>): string | undefined {
  for (const name of nameProps) {
    const value = model[name];
    if (typeof value === 'string' && value && !value.startsWith('arn:')) return value;
  }
  return undefined;
}

/** The primary identifier of a model (multi-part values joined with `|`); undefined while a part is missing. */
export function identifierOf(schema: ResourceSchema, model: Record<string, unknown>): string | undefined {
  const parts: string[] = [];
  for (const pointer of schema.primaryIdentifier) {
    const value = getAt(model, pointerPath(pointer));
    if (value === undefined || value === null || value === '') return undefined;
    parts.push(typeof value === 'string' ? value : JSON.stringify(value));
  }
  return parts.join('|');
}
