// @ts-check
'use strict';
// AWS::SSM::Parameter through the SSM API. The physical id is the parameter
// name. Everything cdkd provides (clients, logger, errors, region check)
// arrives through `ctx`; the pack has no runtime dependency on cdkd.
const { createHash } = require('node:crypto');
const {
  AddTagsToResourceCommand,
  DeleteParameterCommand,
  GetParameterCommand,
  ListTagsForResourceCommand,
  PutParameterCommand,
  RemoveTagsFromResourceCommand,
  SSMClient,
} = require('@aws-sdk/client-ssm');

/**
 * What PutParameter needs to put a removed property back to its default
 * (CloudFormation resets a property removed from the template; PutParameter
 * with Overwrite keeps what it is not given).
 */
const RESET_VALUES = {
  AllowedPattern: '',
  DataType: 'text',
  Description: '',
  Policies: '[]',
  Tier: 'Standard',
};

/** @implements {import('@cdkd/plugin-api').ResourceProvider} */
class SsmParameterProvider {
  /** @param {import('@cdkd/plugin-api').ProviderContext} ctx */
  constructor(ctx) {
    this.ctx = ctx;
  }

  client() {
    return this.ctx.clients.get(SSMClient);
  }

  /** @type {import('@cdkd/plugin-api').ResourceProvider['create']} */
  async create(logicalId, resourceType, properties, context) {
    // An unnamed parameter is named from the create's idempotency token, so the
    // same create — retried, or re-sent by a later cdkd run — finds the same name.
    const name =
      typeof properties.Name === 'string' && properties.Name !== ''
        ? properties.Name
        : (context.generatePhysicalName?.({ maxLength: 1011, extraCharacters: '-_.' }) ??
          `CFN-${logicalId}-${createHash('sha256').update(context.idempotencyToken).digest('hex').slice(0, 12).toUpperCase()}`);
    // The ownership tags mark the parameter as this create's.
    const tagged = { ...tagMap(properties.Tags), ...(context.ownership?.tags ?? {}) };
    const tags = Object.entries(tagged).map(([Key, Value]) => ({ Key, Value }));
    const abortSignal = context.signal;
    try {
      await this.client().send(
        new PutParameterCommand({
          ...putInput(name, properties),
          Overwrite: false,
          ...(tags.length > 0 ? { Tags: tags } : {}),
        }),
        { abortSignal },
      );
    } catch (err) {
      if (errorName(err) !== 'ParameterAlreadyExists') {
        throw this.wrap(err, `creating parameter ${name}`, logicalId, resourceType, name);
      }
      // The name is taken: adopt the parameter only if this very create made it (its reply was lost).
      if (!(await this.madeBy(name, properties, context))) {
        const Exists = this.ctx.errors.ResourceExistsError ?? this.ctx.errors.ProvisioningError;
        throw new Exists(`SSM parameter ${name} already exists and was not made by this create.`, {
          cause: err,
          resource: { logicalId, resourceType, physicalId: name },
          remedy: `Give ${logicalId} another Name, delete the existing parameter, or import it.`,
        });
      }
    }
    return { physicalId: name, attributes: await this.attributes(name) };
  }

  /** True when the parameter carries this create's ownership tags (without them, its value and type must match). */
  async madeBy(name, properties, context) {
    try {
      if (!context.ownership) return await this.holds(name, properties);
      const out = await this.client().send(
        new ListTagsForResourceCommand({ ResourceType: 'Parameter', ResourceId: name }),
        { abortSignal: context.signal },
      );
      return context.ownership.classify(out.TagList) === 'same-intent';
    } catch {
      return false;
    }
  }

  /** @type {import('@cdkd/plugin-api').ResourceProvider['update']} */
  async update(logicalId, physicalId, resourceType, properties, previousProperties, context) {
    const client = this.client();
    this.ctx.assertRegionMatch(
      await client.config.region(),
      context?.expectedRegion,
      resourceType,
      logicalId,
      physicalId,
      'pre-update',
    );
    /** @type {Record<string, unknown>} */
    const input = { ...putInput(physicalId, properties), Overwrite: true };
    for (const [key, reset] of Object.entries(RESET_VALUES)) {
      if (properties[key] === undefined && previousProperties[key] !== undefined) input[key] = reset;
    }
    const desired = tagMap(properties.Tags);
    const previous = tagMap(previousProperties.Tags);
    const removed = Object.keys(previous).filter((k) => !(k in desired));
    const changed = Object.entries(desired)
      .filter(([k, v]) => previous[k] !== v)
      .map(([Key, Value]) => ({ Key, Value }));
    try {
      await client.send(new PutParameterCommand(/** @type {any} */ (input)));
      if (removed.length > 0) {
        await client.send(
          new RemoveTagsFromResourceCommand({
            ResourceType: 'Parameter',
            ResourceId: physicalId,
            TagKeys: removed,
          }),
        );
      }
      if (changed.length > 0) {
        await client.send(
          new AddTagsToResourceCommand({ ResourceType: 'Parameter', ResourceId: physicalId, Tags: changed }),
        );
      }
    } catch (err) {
      throw this.wrap(err, `updating parameter ${physicalId}`, logicalId, resourceType, physicalId);
    }
    return { physicalId, wasReplaced: false, attributes: await this.attributes(physicalId) };
  }

  /** @type {import('@cdkd/plugin-api').ResourceProvider['delete']} */
  async delete(logicalId, physicalId, resourceType, _properties, context) {
    const client = this.client();
    try {
      await client.send(new DeleteParameterCommand({ Name: physicalId }));
    } catch (err) {
      if (errorName(err) !== 'ParameterNotFound')
        throw this.wrap(err, `deleting parameter ${physicalId}`, logicalId, resourceType, physicalId);
      // Gone only if we looked in the region it was created in.
      this.ctx.assertRegionMatch(
        await client.config.region(),
        context?.expectedRegion,
        resourceType,
        logicalId,
        physicalId,
      );
    }
  }

  /** @type {NonNullable<import('@cdkd/plugin-api').ResourceProvider['getAttribute']>} */
  async getAttribute(physicalId, _resourceType, attributeName) {
    try {
      return (await this.attributes(physicalId))[attributeName];
    } catch (err) {
      if (errorName(err) === 'ParameterNotFound') return undefined;
      throw err;
    }
  }

  /** `Fn::GetAtt` values: Arn, Type and Value. */
  async attributes(name) {
    const out = await this.client().send(new GetParameterCommand({ Name: name }));
    const p = out.Parameter ?? {};
    return { Arn: p.ARN, Type: p.Type, Value: p.Value };
  }

  /** True when the parameter exists with the type and value `properties` ask for. */
  async holds(name, properties) {
    try {
      const { Parameter } = await this.client().send(new GetParameterCommand({ Name: name }));
      return Parameter?.Value === String(properties.Value) && Parameter?.Type === properties.Type;
    } catch {
      return false;
    }
  }

  wrap(err, doing, logicalId, resourceType, physicalId) {
    if (this.ctx.errors.isCdkdError(err)) return err;
    const message = err instanceof Error ? err.message : String(err);
    return new this.ctx.errors.ProvisioningError(`SSM ${errorName(err)} while ${doing}: ${message}`, {
      cause: err,
      // The SDK already retried throttling, 5xx answers and lost connections: no second retry layer.
      resource: { logicalId, resourceType, physicalId },
    });
  }
}

/** The PutParameter fields a template sets (Tags are sent separately). */
function putInput(name, properties) {
  /** @type {Record<string, unknown>} */
  const input = { Name: name, Value: String(properties.Value), Type: properties.Type };
  for (const key of ['AllowedPattern', 'DataType', 'Description', 'Policies', 'Tier']) {
    if (properties[key] !== undefined) input[key] = String(properties[key]);
  }
  return input;
}

/** SSM parameter tags are a map in CloudFormation (`{ key: value }`). */
function tagMap(tags) {
  /** @type {Record<string, string>} */
  const map = {};
  if (tags && typeof tags === 'object' && !Array.isArray(tags)) {
    for (const [k, v] of Object.entries(tags)) map[k] = String(v);
  }
  return map;
}

function errorName(err) {
  return err && typeof err === 'object' && typeof err.name === 'string' ? err.name : 'error';
}

module.exports = { SsmParameterProvider };
