#!/usr/bin/env node
// @ts-check
// Generates schemas/ from the pinned @aws-cdk/aws-service-spec: one JSON Schema
// per CloudFormation resource type plus cdkd's annotation keywords (see
// docs/schemas.md). Output is deterministic and carries no documentation text,
// so regenerating with the same spec version is byte-identical.
//
// Usage: node scripts/generate-schemas.js [output-dir]   (default: <repo>/schemas)
'use strict';
const fs = require('node:fs');
const path = require('node:path');

/** @typedef {Record<string, any>} Json */

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
/** The definition the old spec's builtin `tag` type maps to. */
const BUILTIN_TAG = {
  type: 'object',
  properties: { Key: { type: 'string' }, Value: { type: 'string' } },
  required: ['Key', 'Value'],
  additionalProperties: false,
};

/**
 * Write-only properties by type: not in the service spec, so kept beside this
 * script (from the CloudFormation registry's schemas).
 * @type {Record<string, string[]>}
 */
const WRITE_ONLY = require('./schema-write-only.json').types;

/** `AWS::SQS::Queue` → `AWS-SQS-Queue.json`. */
function fileNameOf(typeName) {
  return `${typeName.replace(/::/g, '-')}.json`;
}

/** One JSON pointer segment (RFC 6901 escaping). */
function pointerSegment(name) {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** `['Endpoint', 'Address']` → `/properties/Endpoint/Address`. */
function propertyPointer(segments) {
  return '/properties/' + segments.map(pointerSegment).join('/');
}

/**
 * Builds one resource type's schema.
 * @param {any} db the service-spec database
 * @param {any} resource a `Resource` entity
 * @returns {Json}
 */
function buildResourceSchema(db, resource) {
  // Definition names for this resource, assigned on first use; the builtin tag
  // type gets `Tag` unless the resource has its own definition of that name.
  /** @type {Map<string, string>} typeDefinition id → definition name */
  const definitionNames = new Map();
  /** @type {Map<string, any>} definition name → typeDefinition entity (or null for the builtin tag) */
  const definitionsByName = new Map();
  const ownDefinitionNames = new Set(
    db.follow('usesType', resource).map((/** @type {any} */ rel) => rel.entity.name),
  );
  const tagDefinitionName = ownDefinitionNames.has('Tag') ? 'BuiltinTag' : 'Tag';

  function definitionNameOf(/** @type {string} */ id) {
    let name = definitionNames.get(id);
    if (name === undefined) {
      const def = db.get('typeDefinition', id);
      name = def.name;
      for (let n = 2; definitionsByName.has(/** @type {string} */ (name)); n++) name = `${def.name}${n}`;
      definitionNames.set(id, /** @type {string} */ (name));
      definitionsByName.set(/** @type {string} */ (name), def);
    }
    return /** @type {string} */ (name);
  }

  /** JSON Schema of one property type. */
  function schemaOfType(/** @type {any} */ type) {
    switch (type.type) {
      case 'string':
        return { type: 'string' };
      case 'date-time':
        return { type: 'string' };
      case 'integer':
        return { type: 'integer' };
      case 'number':
        return { type: 'number' };
      case 'boolean':
        return { type: 'boolean' };
      case 'null':
        return { type: 'null' };
      case 'json':
        return {};
      case 'tag':
        definitionsByName.set(tagDefinitionName, null);
        return { $ref: `#/definitions/${tagDefinitionName}` };
      case 'ref':
        return { $ref: `#/definitions/${definitionNameOf(type.reference.$ref)}` };
      case 'array':
        return { type: 'array', items: schemaOfType(type.element) };
      case 'map': {
        const element = schemaOfType(type.element);
        return Object.keys(element).length === 0
          ? { type: 'object' }
          : { type: 'object', additionalProperties: element };
      }
      case 'union': {
        // A union with Json in it accepts anything.
        if (type.types.some((/** @type {any} */ t) => t.type === 'json')) return {};
        const seen = new Set();
        const members = [];
        for (const t of type.types) {
          const s = schemaOfType(t);
          const key = JSON.stringify(s);
          if (!seen.has(key)) {
            seen.add(key);
            members.push(s);
          }
        }
        members.sort((a, b) => compareStrings(JSON.stringify(a), JSON.stringify(b)));
        return members.length === 1 ? members[0] : { anyOf: members };
      }
      default:
        throw new Error(`${resource.cloudFormationType}: unknown property type ${JSON.stringify(type)}`);
    }
  }

  /** Object schema of a set of properties (resource or definition). */
  function objectSchema(/** @type {Record<string, any>} */ props) {
    const properties = {};
    const required = [];
    for (const name of Object.keys(props).sort(compareStrings)) {
      const prop = props[name];
      if (prop.deprecated === 'IGNORE') continue;
      properties[name] = schemaOfType(prop.type);
      if (prop.required) required.push(name);
    }
    return { properties, required };
  }

  const { properties, required } = objectSchema(resource.properties);
  const writable = new Set(Object.keys(properties));

  // Attributes: a plain one that is not a writable property is a read-only
  // property; a dotted one is a read-only path inside its top-level property.
  const attributeNames = Object.keys(resource.attributes).sort(compareStrings);
  const readOnly = new Set();
  /** Tree of dotted attributes whose top-level name is neither a property nor a plain attribute. */
  const synthesized = new Map();
  for (const name of attributeNames) {
    const segments = name.split('.');
    if (segments.length === 1) {
      if (!writable.has(name)) {
        properties[name] = schemaOfType(resource.attributes[name].type);
        readOnly.add(propertyPointer(segments));
      }
      continue;
    }
    readOnly.add(propertyPointer(segments));
    if (!writable.has(segments[0]) && !resource.attributes[segments[0]]) {
      let node = synthesized;
      for (const seg of segments.slice(0, -1)) {
        if (!node.has(seg)) node.set(seg, new Map());
        const next = node.get(seg);
        if (!(next instanceof Map)) break; // an ancestor has its own type; it describes the subtree
        node = next;
      }
      const leaf = segments[segments.length - 1];
      if (!node.has(leaf) || node.get(leaf) instanceof Map)
        node.set(leaf, schemaOfType(resource.attributes[name].type));
    }
  }
  const treeToSchema = (/** @type {Map<string, any>} */ tree) => {
    const props = {};
    for (const key of [...tree.keys()].sort(compareStrings)) {
      const v = tree.get(key);
      props[key] = v instanceof Map ? treeToSchema(v) : v;
    }
    return { type: 'object', properties: props };
  };
  for (const [top, tree] of synthesized) {
    properties[top] = treeToSchema(tree);
    readOnly.add(propertyPointer([top]));
  }

  // Create-only paths: a replacing property stops the descent (its subtree replaces too).
  const createOnly = new Set();
  const conditionalCreateOnly = new Set();
  /** @type {Map<string, {yes: string[][], maybe: string[][]}>} per definition, relative replacing paths */
  const replacingMemo = new Map();
  const inProgress = new Set();

  function replacingPathsOfType(/** @type {any} */ type) {
    /** @type {{yes: string[][], maybe: string[][]}} */
    const out = { yes: [], maybe: [] };
    switch (type.type) {
      case 'ref': {
        const r = replacingPathsOfDefinition(type.reference.$ref);
        out.yes.push(...r.yes);
        out.maybe.push(...r.maybe);
        break;
      }
      case 'array':
      case 'map': {
        const r = replacingPathsOfType(type.element);
        out.yes.push(...r.yes.map((p) => ['*', ...p]));
        out.maybe.push(...r.maybe.map((p) => ['*', ...p]));
        break;
      }
      case 'union':
        for (const t of type.types) {
          const r = replacingPathsOfType(t);
          out.yes.push(...r.yes);
          out.maybe.push(...r.maybe);
        }
        break;
      default:
        break;
    }
    return out;
  }

  function replacingPathsOf(/** @type {Record<string, any>} */ props) {
    /** @type {{yes: string[][], maybe: string[][]}} */
    const out = { yes: [], maybe: [] };
    for (const name of Object.keys(props).sort(compareStrings)) {
      const prop = props[name];
      if (prop.deprecated === 'IGNORE') continue;
      if (prop.causesReplacement === 'yes') {
        out.yes.push([name]);
        continue;
      }
      if (prop.causesReplacement === 'maybe') out.maybe.push([name]);
      const inner = replacingPathsOfType(prop.type);
      out.yes.push(...inner.yes.map((p) => [name, ...p]));
      out.maybe.push(...inner.maybe.map((p) => [name, ...p]));
    }
    return out;
  }

  function replacingPathsOfDefinition(/** @type {string} */ id) {
    const memo = replacingMemo.get(id);
    if (memo) return memo;
    if (inProgress.has(id)) return { yes: [], maybe: [] }; // recursive definition
    inProgress.add(id);
    const result = replacingPathsOf(db.get('typeDefinition', id).properties);
    inProgress.delete(id);
    replacingMemo.set(id, result);
    return result;
  }

  const replacing = replacingPathsOf(resource.properties);
  for (const p of replacing.yes) createOnly.add(propertyPointer(p));
  for (const p of resource.additionalReplacementProperties ?? []) createOnly.add(propertyPointer(p));
  for (const p of replacing.maybe) {
    const pointer = propertyPointer(p);
    if (!createOnly.has(pointer)) conditionalCreateOnly.add(pointer);
  }

  // Definitions: emit every one reached from properties and attributes (the
  // queue grows while definitions reference further ones).
  /** @type {Record<string, Json>} */
  const definitions = {};
  const emitted = new Set();
  for (
    let pending = [...definitionsByName.keys()];
    pending.length > 0;
    pending = [...definitionsByName.keys()].filter((n) => !emitted.has(n))
  ) {
    for (const name of pending) {
      emitted.add(name);
      const def = definitionsByName.get(name);
      if (def === null) {
        definitions[name] = BUILTIN_TAG;
        continue;
      }
      const shape = objectSchema(def.properties);
      if (Object.keys(shape.properties).length === 0) {
        // The spec knows nothing about its members: accept any object.
        definitions[name] = { type: 'object' };
        continue;
      }
      /** @type {Json} */
      const schema = { type: 'object', properties: shape.properties };
      if (shape.required.length > 0) schema.required = shape.required;
      schema.additionalProperties = false;
      definitions[name] = schema;
    }
  }

  const toPointers = (/** @type {string[] | undefined} */ ids) =>
    ids?.map((id) => propertyPointer(id.split(/[./]/)));

  /** @type {Json} */
  const schema = {
    $schema: DRAFT_07,
    typeName: resource.cloudFormationType,
    type: 'object',
    properties: sortKeys(properties),
  };
  if (required.length > 0) schema.required = required;
  schema.additionalProperties = false;
  if (Object.keys(definitions).length > 0) schema.definitions = sortKeys(definitions);
  const primaryIdentifier = toPointers(resource.primaryIdentifier);
  if (primaryIdentifier) schema.primaryIdentifier = primaryIdentifier;
  const refIdentifier = toPointers(resource.cfnRefIdentifier) ?? primaryIdentifier;
  if (refIdentifier) schema.refIdentifier = refIdentifier;
  if (readOnly.size > 0) schema.readOnlyProperties = [...readOnly].sort(compareStrings);
  if (createOnly.size > 0) schema.createOnlyProperties = [...createOnly].sort(compareStrings);
  if (conditionalCreateOnly.size > 0)
    schema.conditionalCreateOnlyProperties = [...conditionalCreateOnly].sort(compareStrings);
  if (attributeNames.length > 0) schema.attributes = attributeNames;
  const writeOnly = WRITE_ONLY[resource.cloudFormationType];
  if (writeOnly) schema.writeOnlyProperties = [...writeOnly].sort(compareStrings);
  const deprecated = Object.keys(resource.properties)
    .filter((name) => resource.properties[name].deprecated === 'WARN')
    .map((name) => propertyPointer([name]))
    .sort(compareStrings);
  if (deprecated.length > 0) schema.deprecatedProperties = deprecated;
  if (resource.arnTemplate) schema.arnTemplate = resource.arnTemplate;
  if (resource.tagInformation) {
    schema.tagging = {
      taggable: true,
      tagPropertyName: resource.tagInformation.tagPropertyName,
      variant: resource.tagInformation.variant,
    };
  }
  return schema;
}

/** Code-unit order, independent of the locale. */
function compareStrings(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A copy of an object with its own keys sorted (not recursive). */
function sortKeys(/** @type {Json} */ obj) {
  /** @type {Json} */
  const out = {};
  for (const k of Object.keys(obj).sort(compareStrings)) out[k] = obj[k];
  return out;
}

/**
 * Compact but diff-friendly: one top-level keyword per line, and one line per
 * member of `properties` and `definitions`; everything deeper on that line.
 */
function formatSchema(/** @type {Json} */ schema) {
  const lines = Object.keys(schema).map((key) => {
    const value = schema[key];
    if ((key === 'properties' || key === 'definitions') && Object.keys(value).length > 0) {
      const members = Object.keys(value).map(
        (name) => `    ${JSON.stringify(name)}: ${JSON.stringify(value[name])}`,
      );
      return `  ${JSON.stringify(key)}: {\n${members.join(',\n')}\n  }`;
    }
    return `  ${JSON.stringify(key)}: ${JSON.stringify(value)}`;
  });
  return `{\n${lines.join(',\n')}\n}\n`;
}

/**
 * What @aws-cdk/cloudformation-diff examines for permission and network
 * changes, by type: `["*"]` when the resource itself is scrutinized (an IAM
 * policy, a resource policy, a Lambda permission...), else the top-level
 * properties that are (inline policies, managed policy lists, security group
 * rules). cdkd runs that diff, which loads the whole service spec, only when a
 * deploy touches one of them.
 * @param {any[]} resources sorted by type
 * @returns {Record<string, string[]>}
 */
function securityScrutiny(resources) {
  const isScrutinized = (/** @type {string | undefined} */ s) => s !== undefined && s !== 'None';
  /** @type {Record<string, string[]>} */
  const out = {};
  for (const r of resources) {
    if (isScrutinized(r.scrutinizable)) {
      out[r.cloudFormationType] = ['*'];
      continue;
    }
    const properties = Object.entries(r.properties ?? {})
      .filter(([, p]) => isScrutinized(/** @type {any} */ (p).scrutinizable))
      .map(([name]) => name)
      .sort(compareStrings);
    if (properties.length) out[r.cloudFormationType] = properties;
  }
  return out;
}

/**
 * Writes every schema and index.json into `outDir` (emptied of stale *.json first).
 * @param {string} outDir
 * @returns {Promise<{ types: number, bytes: number }>}
 */
async function generateSchemas(outDir) {
  const { loadAwsServiceSpec } = require('@aws-cdk/aws-service-spec');
  const specVersion = require('@aws-cdk/aws-service-spec/package.json').version;
  const db = await loadAwsServiceSpec();
  const resources = db
    .all('resource')
    .slice()
    .sort((/** @type {any} */ a, /** @type {any} */ b) =>
      compareStrings(a.cloudFormationType, b.cloudFormationType),
    );

  fs.mkdirSync(outDir, { recursive: true });
  for (const f of fs.readdirSync(outDir)) if (f.endsWith('.json')) fs.rmSync(path.join(outDir, f));

  /** @type {Record<string, string>} */
  const index = {};
  const fileNamesSeen = new Map();
  let bytes = 0;
  for (const resource of resources) {
    const typeName = resource.cloudFormationType;
    const file = fileNameOf(typeName);
    const clash = fileNamesSeen.get(file.toLowerCase());
    if (clash) throw new Error(`${typeName} and ${clash} map to the same file name ${file}`);
    fileNamesSeen.set(file.toLowerCase(), typeName);
    const text = formatSchema(buildResourceSchema(db, resource));
    fs.writeFileSync(path.join(outDir, file), text);
    bytes += Buffer.byteLength(text);
    index[typeName] = file;
  }
  const indexText =
    JSON.stringify({ specVersion, types: index, securityScrutiny: securityScrutiny(resources) }, null, 1) +
    '\n';
  fs.writeFileSync(path.join(outDir, 'index.json'), indexText);
  bytes += Buffer.byteLength(indexText);
  return { types: resources.length, bytes };
}

module.exports = { generateSchemas, fileNameOf };

if (require.main === module) {
  const outDir = path.resolve(process.argv[2] ?? path.join(__dirname, '..', 'schemas'));
  generateSchemas(outDir).then(
    ({ types, bytes }) =>
      process.stdout.write(`Wrote ${types} schemas (${(bytes / 1024 / 1024).toFixed(1)} MiB) to ${outDir}\n`),
    (err) => {
      process.stderr.write(`${err.stack || err}\n`);
      process.exit(1);
    },
  );
}
