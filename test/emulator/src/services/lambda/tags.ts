/**
 * Tags of functions and event source mappings: TagResource, UntagResource,
 * ListTags on the unqualified function ARN or the mapping's ARN.
 */
import { AwsError } from '../../core/errors';
import type { CallContext, Operations } from '../../core/service';
import { functionNotFound, type LambdaContext } from './context';
import { functionArn, parseTaggableArn, validationError } from './names';

const MAX_TAGS = 50;

/** Checks a tag map as Lambda does: at most 50, keys 1–128 and not `aws:`, values at most 256. */
export function validateTags(tags: Record<string, string> | undefined): Record<string, string> {
  if (!tags) return {};
  for (const [key, value] of Object.entries(tags)) {
    if (key.length < 1 || key.length > 128)
      throw validationError(
        'tags',
        key,
        'Map keys must satisfy constraint: [Member must have length less than or equal to 128]',
      );
    if (key.toLowerCase().startsWith('aws:'))
      throw new AwsError('InvalidParameterValueException', `Tag keys cannot start with 'aws:': ${key}`);
    if (String(value).length > 256)
      throw validationError(
        'tags',
        value,
        'Map values must satisfy constraint: [Member must have length less than or equal to 256]',
      );
  }
  return { ...tags };
}

function checkCount(tags: Record<string, string>): void {
  if (Object.keys(tags).length > MAX_TAGS)
    throw new AwsError('InvalidParameterValueException', 'Number of tags exceeds resource tag limit.');
}

export function mergeTags(
  current: Record<string, string>,
  added: Record<string, string>,
): Record<string, string> {
  const merged = { ...current, ...validateTags(added) };
  checkCount(merged);
  return merged;
}

export class TagHandlers {
  readonly operations: Operations = {
    TagResource: (ctx, input: { Resource?: string; Tags?: Record<string, string> }) => {
      const holder = this.holder(ctx, input.Resource);
      holder.tags = mergeTags(holder.tags, input.Tags ?? {});
      return {};
    },
    UntagResource: (ctx, input: { Resource?: string; TagKeys?: string[] }) => {
      const holder = this.holder(ctx, input.Resource);
      for (const key of input.TagKeys ?? []) delete holder.tags[key];
      return {};
    },
    ListTags: (ctx, input: { Resource?: string }) => ({ Tags: { ...this.holder(ctx, input.Resource).tags } }),
  };

  constructor(private readonly lambda: LambdaContext) {}

  /** The function or event source mapping an ARN names. */
  private holder(ctx: CallContext, resource: string | undefined): { tags: Record<string, string> } {
    const target = resource ? parseTaggableArn(resource) : undefined;
    if (!resource || !target)
      throw validationError(
        'resource',
        resource,
        'Member must satisfy regular expression pattern: arn:(aws[a-zA-Z-]*):lambda:[a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\\d{1}:\\d{12}:(function:[a-zA-Z0-9-_]+|event-source-mapping:[0-9a-f-]+)',
      );
    if (target.account !== ctx.account || target.region !== ctx.region) {
      throw target.kind === 'function'
        ? functionNotFound(resource)
        : new AwsError('ResourceNotFoundException', `The resource you requested does not exist.`);
    }
    if (target.kind === 'function') {
      const fn = this.lambda.store.getFunction(ctx.account, ctx.region, target.id);
      if (!fn) throw functionNotFound(functionArn(ctx.account, ctx.region, target.id));
      return fn;
    }
    const mapping = this.lambda.store.eventSourceMappings.get(target.id);
    if (!mapping || mapping.account !== ctx.account || mapping.region !== ctx.region)
      throw new AwsError('ResourceNotFoundException', 'The resource you requested does not exist.');
    return mapping;
  }
}
