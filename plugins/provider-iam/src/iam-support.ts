/**
 * What every IAM provider of the pack shares: the IAM client (from cdkd's
 * client factory, so region, credentials and endpoint are cdkd's), the abort
 * signal on every call, bounded retries of the two IAM answers that a retry
 * can cure, errors worded for the user, and the ownership check of a create
 * that met an existing entity.
 *
 * Retries: the SDK already retries throttling, 5xx answers and lost
 * connections of every call. IAM adds two documented cases: a
 * `ConcurrentModification` (another change of the same entity in flight) and
 * the `NoSuchEntity` of an entity created moments ago somewhere else in the
 * deploy (IAM is eventually consistent, IAM User Guide, "Troubleshoot IAM":
 * changes may take time to become visible). Both are retried a few times, for
 * seconds, never indefinitely.
 */
import { IAMClient } from '@aws-sdk/client-iam';
import type { ProviderContext, ResourceOwnership } from '@cdkd/plugin-api';
import { errorName, isConcurrentModification, isNoSuchEntity } from './errors';

/** One IAM call: `(client, options) => client.send(new XCommand(...), options)`. */
export type IamCall<T> = (client: IAMClient, options: { abortSignal?: AbortSignal }) => Promise<T>;

/** Retry of IAM's concurrent-modification answers. */
const CONCURRENT = { maxAttempts: 5, baseDelayMs: 300, maxDelayMs: 3_000 };
/** Retry of a just-created entity another call cannot see yet. */
const PROPAGATION = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 4_000 };

/** Tags of the plugin API's ownership marker start with this. */
export const OWNERSHIP_TAG_PREFIX = 'cdkd:';

export interface ResourceRef {
  logicalId?: string;
  resourceType: string;
  physicalId?: string;
}

export class IamSupport {
  constructor(readonly ctx: ProviderContext) {}

  client(): IAMClient {
    return this.ctx.clients.get(IAMClient);
  }

  /** Makes one call with the abort signal, retrying `ConcurrentModification`. */
  async send<T>(signal: AbortSignal | undefined, call: IamCall<T>): Promise<T> {
    return this.ctx.retry(() => call(this.client(), { abortSignal: signal }), {
      ...CONCURRENT,
      isRetryable: (err) => isConcurrentModification(err) && !signal?.aborted,
    });
  }

  /**
   * A call that names an entity made elsewhere in this deploy (a policy to attach, a role to
   * add, a group to join): its `NoSuchEntity` is retried for a few seconds first.
   */
  async sendReferencing<T>(signal: AbortSignal | undefined, call: IamCall<T>): Promise<T> {
    return this.ctx.retry(() => this.send(signal, call), {
      ...PROPAGATION,
      isRetryable: (err) => isNoSuchEntity(err) && !signal?.aborted,
    });
  }

  /** The region check before reading `NoSuchEntity` as "already deleted". IAM is global; the check is the contract's. */
  async assertRegion(
    expectedRegion: string | undefined,
    ref: ResourceRef,
    phase?: 'pre-update',
  ): Promise<void> {
    this.ctx.assertRegionMatch(
      await this.client().config.region(),
      expectedRegion,
      ref.resourceType,
      ref.logicalId ?? '',
      ref.physicalId ?? '',
      phase,
    );
  }

  /**
   * Runs a delete of `what` (e.g. `role`, named by `ref.physicalId`): a
   * `NoSuchEntity` counts as deleted only after the region check; any other
   * error is worded with {@link wrap}.
   */
  async deleteOrGone(
    what: string,
    ref: ResourceRef,
    expectedRegion: string | undefined,
    run: () => Promise<void>,
  ): Promise<void> {
    try {
      await run();
    } catch (err) {
      if (!isNoSuchEntity(err)) throw this.wrap(err, `deleting ${what} ${ref.physicalId}`, ref);
      await this.assertRegion(expectedRegion, ref);
      this.ctx.logger.debug(`${ref.logicalId}: ${what} ${ref.physicalId} does not exist; nothing to delete`);
    }
  }

  /** `arn:<partition>:iam::<account>:<kind><path><name>`. */
  async arn(kind: string, path: string | undefined, name: string): Promise<string> {
    return `arn:${this.ctx.partition}:iam::${await this.ctx.accountId()}:${kind}${path ?? '/'}${name}`;
  }

  /** An error naming what failed, with the AWS error kept as its cause. */
  wrap(err: unknown, doing: string, ref: ResourceRef): Error {
    if (this.ctx.errors.isCdkdError(err)) return err as Error;
    const name = errorName(err);
    const message = err instanceof Error ? err.message : String(err);
    // Not retryable: the SDK has retried transport errors, throttling and 5xx answers already.
    return new this.ctx.errors.ProvisioningError(`IAM ${name ? `${name} ` : ''}while ${doing}: ${message}`, {
      cause: err,
      resource: ref,
    });
  }

  /** The name is taken by an entity this create did not make: never adopted. */
  exists(what: string, ref: ResourceRef, whose: string, remedy: string, cause?: unknown): Error {
    const ExistsError = this.ctx.errors.ResourceExistsError ?? this.ctx.errors.ProvisioningError;
    return new ExistsError(`${what} already exists (${whose}); cdkd does not take it over.`, {
      ...(cause ? { cause } : {}),
      resource: ref,
      remedy,
    });
  }

  /**
   * After `EntityAlreadyExists`: adopt the entity only when its ownership tags show this very
   * create made it (an earlier attempt whose reply was lost), else refuse.
   */
  checkOwnership(
    ownership: ResourceOwnership | undefined,
    tags: ReadonlyArray<{ Key?: string; Value?: string }> | undefined,
    what: string,
    ref: ResourceRef,
    remedy: string,
    cause: unknown,
  ): void {
    const verdict = ownership ? ownership.classify(tags) : 'foreign';
    if (verdict === 'same-intent') return;
    throw this.exists(
      what,
      ref,
      verdict === 'same-resource' ? 'made by an earlier create of this resource' : 'not made by this stack',
      remedy,
      cause,
    );
  }
}

/** `Tags` of a template as IAM's tag list. */
export function templateTags(value: unknown): Array<{ Key: string; Value: string }> {
  if (!Array.isArray(value)) return [];
  return (value as Array<{ Key?: unknown; Value?: unknown }>)
    .filter((t) => typeof t?.Key === 'string')
    .map((t) => ({ Key: String(t.Key), Value: String(t.Value ?? '') }));
}

/** The template's tags plus the ownership marker (which an update never removes: it is not in the template). */
export function tagsWithOwnership(
  value: unknown,
  ownership: ResourceOwnership | undefined,
): Array<{ Key: string; Value: string }> {
  const tags = templateTags(value).filter((t) => !t.Key.startsWith(OWNERSHIP_TAG_PREFIX));
  for (const [Key, Value] of Object.entries(ownership?.tags ?? {})) tags.push({ Key, Value });
  return tags;
}

/** Tags to set and keys to remove to go from the previous template tags to the new ones. */
export function tagChanges(
  next: unknown,
  previous: unknown,
): { toSet: Array<{ Key: string; Value: string }>; toRemove: string[] } {
  const now = new Map(templateTags(next).map((t) => [t.Key, t.Value]));
  const before = new Map(templateTags(previous).map((t) => [t.Key, t.Value]));
  return {
    toSet: [...now].filter(([k, v]) => before.get(k) !== v).map(([Key, Value]) => ({ Key, Value })),
    toRemove: [...before.keys()].filter((k) => !now.has(k)),
  };
}

/** Tags read back from IAM, without the ownership marker, sorted by key (drift read-back). */
export function userTags(
  tags: ReadonlyArray<{ Key?: string; Value?: string }> | undefined,
): Array<{ Key: string; Value: string }> {
  return (tags ?? [])
    .filter((t) => t.Key !== undefined && !t.Key.startsWith(OWNERSHIP_TAG_PREFIX))
    .map((t) => ({ Key: t.Key!, Value: t.Value ?? '' }))
    .sort((a, b) => (a.Key < b.Key ? -1 : a.Key > b.Key ? 1 : 0));
}

/** A list of strings from a template property (`Roles`, `Users`, `Groups`, `ManagedPolicyArns`). */
export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v !== '') : [];
}

/** An optional string property. */
export function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
