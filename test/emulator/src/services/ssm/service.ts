/** AWS Systems Manager Parameter Store operations. */
import { AwsError } from '../../core/errors';
import { requireString } from '../../core/protocols/aws-json';
import type { CallContext, Operations } from '../../core/service';
import { isValidLabel } from './parameter-rules';
import { isPublicParameter } from './public-parameters';
import {
  currentVersion,
  parameterArn,
  ssmErrors,
  type Parameter,
  type ParameterType,
  type ParameterVersion,
  type SsmStore,
} from './store';

type Input = Record<string, unknown>;

export class SsmOperations {
  readonly operations: Operations = {
    PutParameter: (ctx, input) => this.putParameter(ctx, input),
    GetParameter: (ctx, input) => this.getParameter(ctx, input),
    GetParameters: (ctx, input) => this.getParameters(ctx, input),
    GetParametersByPath: (ctx, input) => this.getParametersByPath(ctx, input),
    GetParameterHistory: (ctx, input) => this.getParameterHistory(ctx, input),
    DeleteParameter: (ctx, input) => this.deleteParameter(ctx, input),
    DeleteParameters: (ctx, input) => this.deleteParameters(ctx, input),
    DescribeParameters: (ctx, input) => this.describeParameters(ctx, input),
    AddTagsToResource: (ctx, input) => this.addTags(ctx, input),
    RemoveTagsFromResource: (ctx, input) => this.removeTags(ctx, input),
    ListTagsForResource: (ctx, input) => this.listTags(ctx, input),
    LabelParameterVersion: (ctx, input) => this.labelVersion(ctx, input),
    UnlabelParameterVersion: (ctx, input) => this.unlabelVersion(ctx, input),
  };

  constructor(private readonly store: SsmStore) {}

  private putParameter(ctx: CallContext, input: Input): unknown {
    const parameter = this.store.put(ctx.account, ctx.region, {
      name: requireString(input, 'Name'),
      value: typeof input.Value === 'string' ? input.Value : '',
      type: input.Type as ParameterType | undefined,
      description: optionalString(input.Description),
      allowedPattern: optionalString(input.AllowedPattern),
      keyId: optionalString(input.KeyId),
      dataType: optionalString(input.DataType),
      tier: optionalString(input.Tier),
      policies: optionalString(input.Policies),
      overwrite: input.Overwrite === true,
      tags: Array.isArray(input.Tags) ? tagMap(input.Tags) : undefined,
      user: ctx.callerArn,
    });
    const current = currentVersion(parameter);
    return { Version: current.version, Tier: current.tier };
  }

  /** `name`, `name:<version>` or `name:<label>`. */
  private resolve(
    ctx: CallContext,
    selectorName: string,
  ): { parameter: Parameter; version: ParameterVersion; selector?: string } {
    const colon = selectorName.lastIndexOf(':');
    const isArn = selectorName.startsWith('arn:');
    const hasSelector = colon > 0 && !(isArn && selectorName.slice(0, colon).split(':').length < 6);
    const name = hasSelector ? selectorName.slice(0, colon) : selectorName;
    const selector = hasSelector ? selectorName.slice(colon + 1) : undefined;
    const parameter = this.store.get(ctx.account, ctx.region, name);
    if (!parameter) throw ssmErrors.notFound(selectorName);
    if (selector === undefined) return { parameter, version: currentVersion(parameter) };
    const version = /^\d+$/.test(selector)
      ? parameter.versions.find((v) => v.version === Number(selector))
      : parameter.versions.find((v) => v.labels.includes(selector));
    if (!version) {
      throw new AwsError(
        'ParameterVersionNotFound',
        `Systems Manager could not find version ${selector} of ${name}. Verify the version and try again.`,
        400,
      );
    }
    return { parameter, version, selector: `:${selector}` };
  }

  private getParameter(ctx: CallContext, input: Input): unknown {
    const { parameter, version, selector } = this.resolve(ctx, requireString(input, 'Name'));
    return { Parameter: this.output(parameter, version, input.WithDecryption === true, selector) };
  }

  private getParameters(ctx: CallContext, input: Input): unknown {
    const names = Array.isArray(input.Names) ? (input.Names as string[]) : [];
    if (names.length < 1 || names.length > 10) {
      throw ssmErrors.validation(
        `1 validation error detected: Value at 'names' failed to satisfy constraint: Member must have length ${names.length < 1 ? 'greater than or equal to 1' : 'less than or equal to 10'}`,
      );
    }
    const Parameters: unknown[] = [];
    const InvalidParameters: string[] = [];
    for (const name of [...new Set(names)]) {
      try {
        const { parameter, version, selector } = this.resolve(ctx, name);
        Parameters.push(this.output(parameter, version, input.WithDecryption === true, selector));
      } catch (err) {
        if (
          err instanceof AwsError &&
          (err.code === 'ParameterNotFound' || err.code === 'ParameterVersionNotFound')
        )
          InvalidParameters.push(name);
        else throw err;
      }
    }
    return { Parameters, InvalidParameters };
  }

  private getParametersByPath(ctx: CallContext, input: Input): unknown {
    const path = requireString(input, 'Path');
    if (!path.startsWith('/'))
      throw ssmErrors.validation(
        'The parameter doesn\'t meet the parameter name requirements. The parameter name must begin with a forward slash "/".',
      );
    const prefix = path.endsWith('/') ? path : `${path}/`;
    const recursive = input.Recursive === true;
    validateFilters(input.ParameterFilters, BY_PATH_FILTER_KEYS);
    const matches = this.store
      .under(ctx.account, ctx.region, prefix)
      .filter((p) => recursive || !p.name.slice(prefix.length).includes('/'))
      .filter((p) => matchesFilters(p, input.ParameterFilters));
    const { page, nextToken } = paginate(matches, input, 10);
    return {
      Parameters: page.map((p) => this.output(p, currentVersion(p), input.WithDecryption === true)),
      NextToken: nextToken,
    };
  }

  private getParameterHistory(ctx: CallContext, input: Input): unknown {
    const parameter = this.store.get(ctx.account, ctx.region, requireString(input, 'Name'));
    if (!parameter) throw ssmErrors.notFound();
    const { page, nextToken } = paginate(parameter.versions, input, 50);
    return {
      Parameters: page.map((v) => ({
        ...metadata(parameter, v),
        Value: this.value(parameter, v, input.WithDecryption === true),
        Labels: v.labels,
      })),
      NextToken: nextToken,
    };
  }

  private deleteParameter(ctx: CallContext, input: Input): unknown {
    const name = requireString(input, 'Name');
    if (!this.store.delete(ctx.account, ctx.region, name)) throw ssmErrors.notFound();
    return {};
  }

  private deleteParameters(ctx: CallContext, input: Input): unknown {
    const names = Array.isArray(input.Names) ? (input.Names as string[]) : [];
    if (names.length < 1 || names.length > 10)
      throw ssmErrors.validation(
        "1 validation error detected: Value at 'names' failed to satisfy constraint: Member must have length less than or equal to 10",
      );
    const DeletedParameters: string[] = [];
    const InvalidParameters: string[] = [];
    for (const name of names)
      (this.store.delete(ctx.account, ctx.region, name) ? DeletedParameters : InvalidParameters).push(name);
    return { DeletedParameters, InvalidParameters };
  }

  private describeParameters(ctx: CallContext, input: Input): unknown {
    const max = input.MaxResults;
    if (max !== undefined && (typeof max !== 'number' || max < 1 || max > 50)) {
      throw ssmErrors.validation(
        "1 validation error detected: Value at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 50",
      );
    }
    validateFilters(input.ParameterFilters, DESCRIBE_FILTER_KEYS);
    const matches = this.store
      .list(ctx.account, ctx.region)
      .filter((p) => matchesFilters(p, input.ParameterFilters) && matchesLegacyFilters(p, input.Filters));
    const { page, nextToken } = paginate(matches, input, 50);
    return { Parameters: page.map((p) => metadata(p, currentVersion(p))), NextToken: nextToken };
  }

  /** A version's value as a read returns it: SecureStrings decrypted through KMS only when asked. */
  private value(parameter: Parameter, version: ParameterVersion, decrypt: boolean): string {
    if (version.type !== 'SecureString') return version.value;
    return decrypt ? this.store.decrypted(parameter, version) : (version.ciphertext ?? version.value);
  }

  private output(
    parameter: Parameter,
    version: ParameterVersion,
    decrypt: boolean,
    selector?: string,
  ): Record<string, unknown> {
    return {
      Name: parameter.name,
      Type: version.type,
      Value: this.value(parameter, version, decrypt),
      Version: version.version,
      Selector: selector,
      LastModifiedDate: version.lastModified,
      ARN: parameterArn(parameter),
      DataType: version.dataType,
    };
  }

  /** LabelParameterVersion: attaches labels to a version (default: the latest), moving them off others. */
  private labelVersion(ctx: CallContext, input: Input): unknown {
    const { parameter, version } = this.labelled(ctx, input);
    const labels = Array.isArray(input.Labels) ? (input.Labels as string[]) : [];
    if (labels.length < 1 || labels.length > 10)
      throw ssmErrors.validation(
        "1 validation error detected: Value at 'labels' failed to satisfy constraint: Member must have length between 1 and 10",
      );
    const valid = labels.filter(isValidLabel);
    const added = valid.filter((l) => !version.labels.includes(l));
    if (version.labels.length + added.length > 10) {
      throw new AwsError(
        'ParameterVersionLabelLimitExceeded',
        'A parameter version can have a maximum of ten labels. Move one or more labels to another version and try again.',
        400,
      );
    }
    for (const other of parameter.versions) other.labels = other.labels.filter((l) => !added.includes(l));
    version.labels.push(...added);
    return { InvalidLabels: labels.filter((l) => !isValidLabel(l)), ParameterVersion: version.version };
  }

  private unlabelVersion(ctx: CallContext, input: Input): unknown {
    const { version } = this.labelled(ctx, input, true);
    const labels = Array.isArray(input.Labels) ? (input.Labels as string[]) : [];
    const removed = labels.filter((l) => version.labels.includes(l));
    version.labels = version.labels.filter((l) => !removed.includes(l));
    return { RemovedLabels: removed, InvalidLabels: labels.filter((l) => !removed.includes(l)) };
  }

  private labelled(
    ctx: CallContext,
    input: Input,
    versionRequired = false,
  ): { parameter: Parameter; version: ParameterVersion } {
    const name = requireString(input, 'Name');
    const parameter = this.store.get(ctx.account, ctx.region, name);
    if (!parameter || isPublicParameter(parameter.name)) throw ssmErrors.notFound(name);
    const wanted = input.ParameterVersion;
    if (versionRequired && typeof wanted !== 'number')
      throw ssmErrors.validation(
        "1 validation error detected: Value null at 'parameterVersion' failed to satisfy constraint: Member must not be null",
      );
    const version =
      typeof wanted === 'number'
        ? parameter.versions.find((v) => v.version === wanted)
        : currentVersion(parameter);
    if (!version) {
      throw new AwsError(
        'ParameterVersionNotFound',
        `Systems Manager could not find version ${String(wanted)} of ${name}. Verify the version and try again.`,
        400,
      );
    }
    return { parameter, version };
  }

  private taggedParameter(ctx: CallContext, input: Input): Parameter {
    const type = requireString(input, 'ResourceType');
    if (type !== 'Parameter')
      throw new AwsError('InvalidResourceType', 'The resource type is not valid for this operation.', 400);
    const parameter = this.store.get(ctx.account, ctx.region, requireString(input, 'ResourceId'));
    if (!parameter)
      throw new AwsError(
        'InvalidResourceId',
        'The resource ID is not valid. Verify that you entered the correct ID and try again.',
        400,
      );
    return parameter;
  }

  private addTags(ctx: CallContext, input: Input): unknown {
    const parameter = this.taggedParameter(ctx, input);
    const tags = { ...parameter.tags, ...tagMap(Array.isArray(input.Tags) ? input.Tags : []) };
    if (Object.keys(tags).length > 50)
      throw new AwsError(
        'TooManyTagsError',
        'The Targets parameter includes too many tags. Remove one or more tags and try the command again.',
        400,
      );
    parameter.tags = tags;
    return {};
  }

  private removeTags(ctx: CallContext, input: Input): unknown {
    const parameter = this.taggedParameter(ctx, input);
    for (const key of Array.isArray(input.TagKeys) ? (input.TagKeys as string[]) : [])
      delete parameter.tags[key];
    return {};
  }

  private listTags(ctx: CallContext, input: Input): unknown {
    const parameter = this.taggedParameter(ctx, input);
    return { TagList: Object.entries(parameter.tags).map(([Key, Value]) => ({ Key, Value })) };
  }
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function tagMap(tags: unknown[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const tag of tags as Array<{ Key?: unknown; Value?: unknown }>) {
    if (typeof tag.Key === 'string') out[tag.Key] = typeof tag.Value === 'string' ? tag.Value : '';
  }
  return out;
}

function metadata(parameter: Parameter, version: ParameterVersion): Record<string, unknown> {
  return {
    Name: parameter.name,
    ARN: parameterArn(parameter),
    Type: version.type,
    KeyId: version.keyId,
    LastModifiedDate: version.lastModified,
    LastModifiedUser: version.lastModifiedUser,
    Description: version.description,
    AllowedPattern: version.allowedPattern,
    Version: version.version,
    Tier: version.tier,
    Policies: (version.policies ?? []).map((text) => ({
      PolicyText: text,
      PolicyType: (JSON.parse(text) as { Type: string }).Type,
      PolicyStatus: 'Pending',
    })),
    DataType: version.dataType,
  };
}

const DESCRIBE_FILTER_KEYS = ['Name', 'Path', 'Type', 'KeyId', 'Tier', 'DataType', 'Label'];
/** GetParametersByPath takes no Name or Path filter (the path is the filter). */
const BY_PATH_FILTER_KEYS = ['Type', 'KeyId', 'Tier', 'DataType', 'Label'];

function validateFilters(filters: unknown, keys: readonly string[]): void {
  if (!Array.isArray(filters)) return;
  for (const f of filters as ParameterFilter[]) {
    const key = f.Key ?? '';
    if (!keys.includes(key) && !key.startsWith('tag:'))
      throw new AwsError(
        'InvalidFilterKey',
        `The following filter key is not valid: ${key}. Valid filter keys include: [${keys.join(', ')}, tag:<key>].`,
        400,
      );
    const option = f.Option;
    const options =
      key === 'Path'
        ? ['Recursive', 'OneLevel']
        : key === 'Name'
          ? ['Equals', 'BeginsWith', 'Contains']
          : key.startsWith('tag:') || key === 'Label'
            ? ['Equals']
            : ['Equals', 'BeginsWith'];
    if (option !== undefined && !options.includes(option))
      throw new AwsError(
        'InvalidFilterOption',
        `The filter option ${option} is not valid for ${key}. Valid options include: [${options.join(', ')}].`,
        400,
      );
  }
}

interface ParameterFilter {
  Key?: string;
  Option?: string;
  Values?: string[];
}

function matchesFilters(parameter: Parameter, filters: unknown): boolean {
  if (!Array.isArray(filters)) return true;
  const version = currentVersion(parameter);
  return (filters as ParameterFilter[]).every((f) => {
    const values = f.Values ?? [];
    switch (f.Key) {
      case 'Name':
        return values.some((v) =>
          f.Option === 'BeginsWith'
            ? parameter.name.startsWith(v)
            : f.Option === 'Contains'
              ? parameter.name.includes(v)
              : parameter.name === v,
        );
      case 'Path':
        return values.some((v) => {
          const prefix = v.endsWith('/') ? v : `${v}/`;
          return (
            parameter.name.startsWith(prefix) &&
            (f.Option === 'Recursive' || !parameter.name.slice(prefix.length).includes('/'))
          );
        });
      case 'Type':
        return values.includes(version.type);
      case 'KeyId':
        return version.keyId !== undefined && values.includes(version.keyId);
      case 'DataType':
        return values.includes(version.dataType);
      case 'Tier':
        return values.includes(version.tier);
      case 'Label':
        return values.some((v) => version.labels.includes(v));
      default:
        if (f.Key?.startsWith('tag:')) {
          const tag = parameter.tags[f.Key.slice(4)];
          return tag !== undefined && (values.length === 0 || values.includes(tag));
        }
        throw ssmErrors.validation(
          `The following filter key is not valid: ${f.Key}. Valid filter keys include: [Path, Name, Type, KeyId, Tier, Label, DataType, tag:].`,
        );
    }
  });
}

function matchesLegacyFilters(parameter: Parameter, filters: unknown): boolean {
  if (!Array.isArray(filters)) return true;
  const version = currentVersion(parameter);
  return (filters as Array<{ Key?: string; Values?: string[] }>).every((f) => {
    const values = f.Values ?? [];
    if (f.Key === 'Name') return values.some((v) => parameter.name.startsWith(v));
    if (f.Key === 'Type') return values.includes(version.type);
    if (f.Key === 'KeyId') return version.keyId !== undefined && values.includes(version.keyId);
    return true;
  });
}

/** Index-based NextToken pagination with the operation's MaxResults default. */
function paginate<T>(items: T[], input: Input, defaultMax: number): { page: T[]; nextToken?: string } {
  const max = typeof input.MaxResults === 'number' ? input.MaxResults : defaultMax;
  let start = 0;
  if (typeof input.NextToken === 'string') {
    start = Number(Buffer.from(input.NextToken, 'base64').toString('utf8'));
    if (!Number.isInteger(start) || start < 0) throw ssmErrors.validation('The NextToken is not valid.');
  }
  const page = items.slice(start, start + max);
  const next = start + max < items.length ? Buffer.from(String(start + max)).toString('base64') : undefined;
  return { page, nextToken: next };
}
