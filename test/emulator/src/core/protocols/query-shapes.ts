/**
 * Form-encoded input by schema, as awsQuery and ec2Query send it:
 * `Tags.member.1.Key=a` (awsQuery lists), `Attribute.1.Name=a` (flattened),
 * `Attributes.entry.1.key=a` (maps), `Filter.1.Value.1=a` (ec2Query: lists
 * always flattened, member names capitalized or `ec2QueryName`).
 */
import type { NormalizedSchema } from '@smithy/core/schema';
import { scalarFromString } from './values';

/** Parameters as a tree split at `.`: `Tags.member.1.Key` → Tags → member → 1 → Key. */
interface ParamNode {
  value?: string;
  children?: Map<string, ParamNode>;
}

export function paramTree(params: URLSearchParams): ParamNode {
  const root: ParamNode = {};
  for (const [key, value] of params) {
    let node = root;
    for (const part of key.split('.')) {
      node.children ??= new Map();
      let next = node.children.get(part);
      if (!next) node.children.set(part, (next = {}));
      node = next;
    }
    node.value = value;
  }
  return root;
}

interface QueryTraits {
  xmlName?: string;
  xmlFlattened?: number | boolean;
  ec2QueryName?: string;
}

/** The numbered children `1`, `2`, ... of a node, in order. */
function numbered(node: ParamNode | undefined): ParamNode[] {
  const out: ParamNode[] = [];
  if (!node?.children) return out;
  for (let i = 1; node.children.has(String(i)); i++) out.push(node.children.get(String(i))!);
  return out;
}

export function readQuery(
  ns: NormalizedSchema,
  node: ParamNode | undefined,
  ec2: boolean,
  path = '',
): unknown {
  if (!node) return undefined;
  if (ns.isListSchema()) {
    const item = ns.getValueSchema();
    const traits = ns.getMergedTraits() as QueryTraits;
    const flat = ec2 || !!traits.xmlFlattened;
    const container = flat
      ? node
      : node.children?.get((item.getMergedTraits() as QueryTraits).xmlName ?? 'member');
    return numbered(container).map((child, i) => readQuery(item, child, ec2, `${path}[${i}]`));
  }
  if (ns.isMapSchema()) {
    const traits = ns.getMergedTraits() as QueryTraits;
    const keyName = (ns.getKeySchema().getMergedTraits() as QueryTraits).xmlName ?? 'key';
    const valueSchema = ns.getValueSchema();
    const valueName = (valueSchema.getMergedTraits() as QueryTraits).xmlName ?? 'value';
    const entries = traits.xmlFlattened ? numbered(node) : numbered(node.children?.get('entry'));
    const out: Record<string, unknown> = {};
    for (const entry of entries) {
      const key = entry.children?.get(keyName)?.value;
      if (key !== undefined)
        out[key] = readQuery(valueSchema, entry.children?.get(valueName), ec2, `${path}.${key}`);
    }
    return out;
  }
  if (ns.isStructSchema()) {
    const out: Record<string, unknown> = {};
    for (const [name, member] of ns.structIterator()) {
      const value = readQuery(
        member,
        node.children?.get(queryKey(name, member, ec2)),
        ec2,
        path ? `${path}.${name}` : name,
      );
      if (value !== undefined) out[name] = value;
    }
    return out;
  }
  if (node.value === undefined) return undefined;
  return scalarFromString(ns, node.value, path);
}

/** The parameter name of a structure member. */
function queryKey(name: string, member: NormalizedSchema, ec2: boolean): string {
  const traits = member.getMergedTraits() as QueryTraits;
  if (ec2) {
    if (traits.ec2QueryName) return traits.ec2QueryName;
    const base = traits.xmlName ?? name;
    return base.charAt(0).toUpperCase() + base.slice(1);
  }
  return traits.xmlName ?? name;
}
