/**
 * An SSM parameter seen as the CloudFormation resource `AWS::SSM::Parameter`,
 * and the provider that keeps Cloud Control's parameters in SSM's own store.
 */
import { upperAlnum } from '../../core/ids';
import {
  alreadyExists,
  HandlerError,
  inventoryItems,
  notFound,
  serviceFailure,
  type ResourceProvider,
  type ResourceScope,
  type StoredResource,
} from '../../core/resources';
import type { ResourceSchema } from '../../core/resource-schema';
import type { InventoryItem } from '../../core/service';
import { isPublicParameter } from './public-parameters';
import {
  currentVersion,
  parameterArn,
  type Parameter,
  type ParameterType,
  type PutParameterInput,
  type SsmStore,
} from './store';

export function parameterProperties(parameter: Parameter): Record<string, unknown> {
  const v = currentVersion(parameter);
  const props: Record<string, unknown> = {
    Name: parameter.name,
    Type: v.type,
    Value: v.value,
    Tier: v.tier,
    DataType: v.dataType,
    Arn: parameterArn(parameter),
  };
  if (v.description !== undefined) props.Description = v.description;
  if (v.allowedPattern !== undefined) props.AllowedPattern = v.allowedPattern;
  if (v.policies) props.Policies = `[${v.policies.join(',')}]`;
  if (Object.keys(parameter.tags).length) props.Tags = { ...parameter.tags };
  return props;
}

/** Whether `desired` differs from the current properties in anything but Tags (and AWS-set ones). */
function changesMoreThanTags(current: Record<string, unknown>, desired: Record<string, unknown>): boolean {
  const defaulted = new Set(['Tags', 'Arn', 'Tier', 'DataType']);
  const keys = new Set([...Object.keys(current), ...Object.keys(desired)]);
  return [...keys].some((k) => {
    if (k === 'Tags' || k === 'Arn') return false;
    if (desired[k] === undefined) return !defaulted.has(k) && current[k] !== undefined;
    return desired[k] !== current[k];
  });
}

export class ParameterProvider implements ResourceProvider {
  readonly typeName = 'AWS::SSM::Parameter';

  constructor(private readonly ssm: SsmStore) {}

  inventory(): InventoryItem[] {
    return inventoryItems(this.typeName, this.ssm.parameters.values(), (p) =>
      isPublicParameter(p.name) ? undefined : { identifier: p.name, model: parameterProperties(p) },
    );
  }

  /** The PutParameter input for a template's properties, put by the account's root as the handler does. */
  private putInput(scope: ResourceScope, name: string, desired: Record<string, unknown>): PutParameterInput {
    return {
      name,
      value: String(desired.Value ?? ''),
      type: desired.Type as ParameterType,
      description: desired.Description as string | undefined,
      allowedPattern: desired.AllowedPattern as string | undefined,
      tier: desired.Tier as string | undefined,
      dataType: desired.DataType as string | undefined,
      policies: desired.Policies as string | undefined,
      user: `arn:aws:iam::${scope.account}:root`,
    };
  }

  create(scope: ResourceScope, schema: ResourceSchema, desired: Record<string, unknown>): StoredResource {
    const name = typeof desired.Name === 'string' ? desired.Name : `CFN-Parameter-${upperAlnum(12)}`;
    if (this.ssm.get(scope.account, scope.region, name)) throw alreadyExists(schema.typeName, name);
    if (desired.Type === 'SecureString') {
      throw new HandlerError(
        'InvalidRequest',
        'SecureString parameters are not supported by AWS::SSM::Parameter; use String or StringList.',
      );
    }
    try {
      const parameter = this.ssm.put(scope.account, scope.region, {
        ...this.putInput(scope, name, desired),
        tags: (desired.Tags as Record<string, string> | undefined) ?? {},
      });
      return { identifier: parameter.name, model: parameterProperties(parameter) };
    } catch (err) {
      throw serviceFailure(err, 'Ssm');
    }
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const parameter = this.ssm.get(scope.account, scope.region, identifier);
    return parameter ? { identifier, model: parameterProperties(parameter) } : undefined;
  }

  update(
    scope: ResourceScope,
    schema: ResourceSchema,
    identifier: string,
    desired: Record<string, unknown>,
  ): StoredResource {
    const parameter = this.ssm.get(scope.account, scope.region, identifier);
    if (!parameter) throw notFound(schema.typeName, identifier);
    // As the handler does: a new version only when more than the tags changed.
    if (changesMoreThanTags(parameterProperties(parameter), desired)) {
      try {
        this.ssm.put(scope.account, scope.region, {
          ...this.putInput(scope, identifier, desired),
          overwrite: true,
        });
      } catch (err) {
        throw serviceFailure(err, 'Ssm');
      }
    }
    parameter.tags = { ...((desired.Tags as Record<string, string> | undefined) ?? {}) };
    return { identifier, model: parameterProperties(parameter) };
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    if (!this.ssm.delete(scope.account, scope.region, identifier))
      throw notFound(schema.typeName, identifier);
  }

  list(scope: ResourceScope): StoredResource[] {
    return this.ssm
      .list(scope.account, scope.region)
      .map((p) => ({ identifier: p.name, model: parameterProperties(p) }));
  }
}
