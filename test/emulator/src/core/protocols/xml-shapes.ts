/**
 * XML bodies by schema, as awsQuery, ec2Query and restXml carry them:
 * `xmlName` renames members, `xmlFlattened` repeats a list or map's element
 * in place of a wrapper, lists wrap items in `<member>` (or the item's
 * `xmlName`), maps in `<entry><key/><value/></entry>`. Timestamps are
 * date-time unless a trait says otherwise; blobs base64.
 */
import type { NormalizedSchema } from '@smithy/core/schema';
import { escapeXml } from '../xml';
import { scalarFromString, scalarToString, timestampFormat } from './values';

interface XmlTraits {
  xmlName?: string;
  xmlFlattened?: number | boolean;
  xmlAttribute?: number | boolean;
  xmlNamespace?: { uri?: string } | string;
}

function traitsOf(ns: NormalizedSchema): XmlTraits {
  return ns.getMergedTraits() as XmlTraits;
}

/** The element name of a structure member: its own `xmlName`, else the member name. */
export function memberElementName(name: string, member: NormalizedSchema): string {
  return (member.getMemberTraits() as XmlTraits).xmlName ?? name;
}

/** Writes `<name>value</name>` (or, for a flattened list/map, the repeated items) into `out`. */
export function writeXmlElement(ns: NormalizedSchema, name: string, value: unknown, out: string[]): void {
  if (value === undefined || value === null) return;
  const traits = traitsOf(ns);
  if (ns.isListSchema()) {
    if (!Array.isArray(value)) return;
    const item = ns.getValueSchema();
    if (traits.xmlFlattened) {
      for (const v of value) writeXmlElement(item, name, v, out);
      return;
    }
    const itemName = traitsOf(item).xmlName ?? 'member';
    out.push('<', name, '>');
    for (const v of value) writeXmlElement(item, itemName, v, out);
    out.push('</', name, '>');
    return;
  }
  if (ns.isMapSchema()) {
    if (typeof value !== 'object') return;
    const keyName = traitsOf(ns.getKeySchema()).xmlName ?? 'key';
    const valueSchema = ns.getValueSchema();
    const valueName = traitsOf(valueSchema).xmlName ?? 'value';
    const entries = Object.entries(value as Record<string, unknown>);
    if (!traits.xmlFlattened) out.push('<', name, '>');
    for (const [k, v] of entries) {
      out.push(
        '<',
        traits.xmlFlattened ? name : 'entry',
        '><',
        keyName,
        '>',
        escapeXml(k),
        '</',
        keyName,
        '>',
      );
      writeXmlElement(valueSchema, valueName, v, out);
      out.push('</', traits.xmlFlattened ? name : 'entry', '>');
    }
    if (!traits.xmlFlattened) out.push('</', name, '>');
    return;
  }
  if (ns.isStructSchema()) {
    if (typeof value !== 'object') return;
    out.push('<', name, '>');
    writeXmlMembers(ns, value as Record<string, unknown>, out);
    out.push('</', name, '>');
    return;
  }
  const text = scalarToString(ns, value, timestampFormat(ns, 'date-time'));
  if (text === undefined) return;
  out.push('<', name, '>', escapeXml(text), '</', name, '>');
}

/** The members of a structure, in schema order (attributes are not modelled). */
export function writeXmlMembers(ns: NormalizedSchema, value: Record<string, unknown>, out: string[]): void {
  for (const [name, member] of ns.structIterator()) {
    if ((member.getMergedTraits() as XmlTraits).xmlAttribute) continue;
    writeXmlElement(member, memberElementName(name, member), value[name], out);
  }
}

/**
 * A value parsed by fast-xml-parser (elements as objects, text as strings,
 * repeated elements as arrays) read into the SDK shape.
 */
export function readXml(ns: NormalizedSchema, value: unknown, path = ''): unknown {
  if (value === undefined || value === null) return undefined;
  const traits = traitsOf(ns);
  if (ns.isListSchema()) {
    const item = ns.getValueSchema();
    let items: unknown;
    if (traits.xmlFlattened) items = value;
    else if (typeof value === 'object' && !Array.isArray(value))
      items = (value as Record<string, unknown>)[traitsOf(item).xmlName ?? 'member'];
    else return [];
    const list = items === undefined ? [] : Array.isArray(items) ? items : [items];
    return list.map((v, i) => readXml(item, v, `${path}[${i}]`));
  }
  if (ns.isMapSchema()) {
    const entries = traits.xmlFlattened
      ? value
      : typeof value === 'object'
        ? (value as Record<string, unknown>).entry
        : undefined;
    const list = entries === undefined ? [] : Array.isArray(entries) ? entries : [entries];
    const keyName = traitsOf(ns.getKeySchema()).xmlName ?? 'key';
    const valueSchema = ns.getValueSchema();
    const valueName = traitsOf(valueSchema).xmlName ?? 'value';
    const out: Record<string, unknown> = {};
    for (const entry of list as Array<Record<string, unknown>>) {
      const key = String(entry?.[keyName] ?? '');
      out[key] = readXml(valueSchema, entry?.[valueName], `${path}.${key}`);
    }
    return out;
  }
  if (ns.isStructSchema()) {
    if (typeof value !== 'object' || Array.isArray(value)) return {};
    const source = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [name, member] of ns.structIterator()) {
      const raw = source[memberElementName(name, member)];
      if (raw !== undefined) out[name] = readXml(member, raw, path ? `${path}.${name}` : name);
    }
    return out;
  }
  if (ns.isDocumentSchema()) return value;
  const text = Array.isArray(value) ? String(value[0] ?? '') : typeof value === 'object' ? '' : String(value);
  return scalarFromString(ns, text, path);
}
