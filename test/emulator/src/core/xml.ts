/**
 * Minimal XML writing (the shapes S3, STS and CloudFormation answer with) and
 * parsing of request bodies through fast-xml-parser.
 */
import { XMLParser } from 'fast-xml-parser';

/** A value that becomes element content. Arrays repeat the element; undefined/null omit it. */
export type XmlValue = string | number | boolean | Date | null | undefined | XmlObject | XmlSeq | XmlValue[];
export interface XmlObject {
  [name: string]: XmlValue;
}

/** Elements emitted in exactly this order (e.g. interleaved `Version` and `DeleteMarker`). */
export class XmlSeq {
  constructor(readonly items: Array<[string, XmlValue]>) {}
}

const XML_SPECIAL = /[&<>"'\r]/;

export function escapeXml(text: string): string {
  if (!XML_SPECIAL.test(text)) return text;
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\r/g, '&#13;');
}

function emitElement(name: string, value: XmlValue, out: string[]): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) emitElement(name, item, out);
    return;
  }
  out.push('<', name, '>');
  emitContent(value, out);
  out.push('</', name, '>');
}

function emitContent(value: XmlValue, out: string[]): void {
  if (value === undefined || value === null) return;
  if (value instanceof Date) out.push(value.toISOString());
  else if (value instanceof XmlSeq) for (const [name, item] of value.items) emitElement(name, item, out);
  else if (Array.isArray(value)) throw new Error('an array must be the value of a named element');
  else if (typeof value === 'object')
    for (const [name, item] of Object.entries(value)) emitElement(name, item, out);
  else out.push(escapeXml(String(value)));
}

/** A complete XML document with the given root element (and namespace). */
export function xmlDocument(root: string, content: XmlValue, xmlns?: string): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n<', root];
  if (xmlns) out.push(' xmlns="', xmlns, '"');
  out.push('>');
  emitContent(content, out);
  out.push('</', root, '>');
  return out.join('');
}

/** Element names that are always parsed as arrays, whatever their count. */
const ARRAY_ELEMENTS = new Set([
  'Object',
  'Part',
  'Tag',
  'Rule',
  'member',
  'CORSRule',
  'AllowedOrigin',
  'AllowedMethod',
  'AllowedHeader',
  'ExposeHeader',
  'Transition',
  'NoncurrentVersionTransition',
  'RoutingRule',
  'TopicConfiguration',
  'QueueConfiguration',
  'CloudFunctionConfiguration',
  'Event',
  'FilterRule',
]);

const OPTIONS = {
  ignoreAttributes: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  removeNSPrefix: true,
};
/** S3's handlers read known list elements as arrays whatever their count. */
const s3Parser = new XMLParser({ ...OPTIONS, isArray: (name) => ARRAY_ELEMENTS.has(name) });
/** The model-driven codecs know from the schema what is a list. */
const plainParser = new XMLParser(OPTIONS);

function parseWith(parser: XMLParser, body: Buffer | string): Record<string, unknown> | undefined {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  if (!text.trim()) return undefined;
  try {
    const parsed = parser.parse(text, true) as Record<string, unknown>;
    delete parsed['?xml'];
    return parsed;
  } catch {
    return undefined;
  }
}

/** Parses an XML request body (S3's list elements as arrays); `undefined` when it is not well-formed. */
export function parseXml(body: Buffer | string): Record<string, unknown> | undefined {
  return parseWith(s3Parser, body);
}

/** Parses an XML document as it is (repeated elements become arrays); `undefined` when not well-formed. */
export function parseXmlDocument(body: Buffer | string): Record<string, unknown> | undefined {
  return parseWith(plainParser, body);
}
