/**
 * AWS::S3::Bucket through the S3 API. The physical id is the bucket name.
 * Loaded by the hook only when a bucket is provisioned (it loads the SDK).
 */
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteBucketCorsCommand,
  DeleteBucketEncryptionCommand,
  DeleteBucketLifecycleCommand,
  DeleteBucketOwnershipControlsCommand,
  DeleteBucketTaggingCommand,
  DeleteBucketWebsiteCommand,
  DeletePublicAccessBlockCommand,
  GetBucketLocationCommand,
  GetBucketTaggingCommand,
  HeadBucketCommand,
  ListBucketsCommand,
  type ListBucketsCommandOutput,
  PutBucketCorsCommand,
  PutBucketEncryptionCommand,
  PutBucketLifecycleConfigurationCommand,
  PutBucketOwnershipControlsCommand,
  PutBucketTaggingCommand,
  PutBucketVersioningCommand,
  PutBucketWebsiteCommand,
  PutPublicAccessBlockCommand,
  S3Client,
  type ObjectOwnership,
  type Tag,
} from '@aws-sdk/client-s3';
import type {
  CreateContext,
  DeleteContext,
  ProviderContext,
  ResourceCreateResult,
  ResourceImportInput,
  ResourceImportResult,
  ResourceProvider,
  ResourceUpdateResult,
  UpdateContext,
} from '@cdkd/plugin-api';
import {
  corsRules,
  encryptionConfiguration,
  lifecycleConfiguration,
  ownershipControls,
  publicAccessBlock,
  sameValue,
  tagSet,
  templateTags,
  versioningStatus,
  websiteConfiguration,
} from './bucket-config';
import { bucketAttributes, generateBucketName } from './bucket-name';
import { OWNERSHIP_TAG_PREFIX } from './bucket-properties';
import {
  alreadyExists,
  errorName,
  isNoSuchBucket,
  isRetryableBucketConflict,
  responseHeader,
  s3Failure,
} from './s3-errors';

type Props = Record<string, unknown>;
/** An S3 call with its command (any client command) ready to send. */
type Send = (client: S3Client, abortSignal?: AbortSignal) => Promise<unknown>;

/** What a tag probe of a bucket name found. */
type TagProbe = { found: 'absent' } | { found: 'tags'; tags: Tag[] } | { found: 'unknown'; error: unknown };

export class S3BucketProvider implements ResourceProvider {
  constructor(private readonly ctx: ProviderContext) {}

  private client(): S3Client {
    return this.ctx.clients.get(S3Client);
  }

  async create(
    logicalId: string,
    resourceType: string,
    properties: Props,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const name =
      typeof properties.BucketName === 'string' && properties.BucketName !== ''
        ? properties.BucketName
        : generateBucketName(logicalId, context);
    const created = await this.createOrFindOwn(name, properties, logicalId, resourceType, context);
    // A bucket this very create made earlier (its reply lost) is configured again: every call is idempotent.
    try {
      await this.configure(name, properties, {}, logicalId, resourceType, context.signal, {
        justCreated: true,
        ownershipSetAtCreate: created === 'created',
      });
    } catch (err) {
      throw await this.madeThenFailed(err, name, logicalId, resourceType, context.signal);
    }
    return { physicalId: name, attributes: this.attributesOf(name) };
  }

  /**
   * The identity of the bucket of this name in this account: its name, region and
   * the `CreationDate` ListBuckets reports (bucket names are global, and a bucket
   * deleted and made again under the same name has a new date). `undefined` when
   * this account has no bucket of that name. Outside us-east-1 S3 moves the date
   * on a later configuration change, which then reads as another bucket (never
   * deleted by mistake, left for the user instead).
   */
  async readIdentity(physicalId: string): Promise<Record<string, string> | undefined> {
    let token: string | undefined;
    do {
      const out = (await this.call(
        (c, abortSignal) =>
          c.send(new ListBucketsCommand({ Prefix: physicalId, ContinuationToken: token }), { abortSignal }),
        {},
      )) as ListBucketsCommandOutput;
      const bucket = out.Buckets?.find((b) => b.Name === physicalId);
      if (bucket) {
        const region = bucket.BucketRegion ?? (await this.locationOf(physicalId));
        if (!region || !bucket.CreationDate) return {};
        return { bucket: physicalId, region, creationDate: new Date(bucket.CreationDate).toISOString() };
      }
      token = out.ContinuationToken;
    } while (token);
    return undefined;
  }

  /**
   * A create that made (or found its own) bucket and then failed definitively: the
   * error carries the bucket and its identity, so cdkd keeps it to delete later
   * rather than leave it untracked. A retryable or in-doubt failure is rethrown as
   * it is: the create is sent again with its token, and finds its own bucket.
   */
  private async madeThenFailed(
    err: unknown,
    name: string,
    logicalId: string,
    resourceType: string,
    signal?: AbortSignal,
  ): Promise<unknown> {
    if (
      signal?.aborted ||
      this.ctx.isTransientError(err) ||
      (err as { retryable?: unknown }).retryable === true
    )
      return err;
    // Read after the failed configuration, so the date is the one a later read sees.
    const identity = await this.readIdentity(name).catch(() => undefined);
    return new this.ctx.errors.ProvisioningError((err as Error)?.message ?? String(err), {
      cause: err,
      resource: { logicalId, resourceType, physicalId: name },
      createdPhysicalId: name,
      ...(identity && Object.keys(identity).length > 0 ? { createdIdentity: identity } : {}),
      remedy: `The bucket ${name} was created before the failure; cdkd keeps it in state and deletes it on the next successful deploy, cdkd rollback or cdkd destroy, while it is still that bucket.`,
    });
  }

  async update(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties: Props,
    previousProperties: Props,
    context?: UpdateContext,
  ): Promise<ResourceUpdateResult> {
    this.ctx.assertRegionMatch(
      await this.client().config.region(),
      context?.expectedRegion,
      resourceType,
      logicalId,
      physicalId,
      'pre-update',
    );
    await this.configure(
      physicalId,
      properties,
      previousProperties,
      logicalId,
      resourceType,
      context?.signal,
      {
        justCreated: false,
        ownershipSetAtCreate: false,
      },
    );
    if (!sameValue(templateTags(properties.Tags), templateTags(previousProperties.Tags))) {
      await this.reconcileTags(
        physicalId,
        templateTags(properties.Tags),
        logicalId,
        resourceType,
        context?.signal,
      );
    }
    return { physicalId, wasReplaced: false, attributes: this.attributesOf(physicalId) };
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    _properties?: Props,
    context?: DeleteContext,
  ): Promise<void> {
    const client = this.client();
    const clientRegion = await client.config.region();
    this.ctx.assertRegionMatch(
      clientRegion,
      context?.expectedRegion,
      resourceType,
      logicalId,
      physicalId,
      'pre-delete',
    );
    try {
      await this.call(
        (c, abortSignal) => c.send(new DeleteBucketCommand({ Bucket: physicalId }), { abortSignal }),
        {
          signal: context?.signal,
        },
      );
    } catch (err) {
      if (isNoSuchBucket(err)) {
        this.ctx.assertRegionMatch(
          clientRegion,
          context?.expectedRegion,
          resourceType,
          logicalId,
          physicalId,
        );
        this.ctx.logger.debug(`${logicalId}: bucket ${physicalId} does not exist; nothing to delete`);
        return;
      }
      if (errorName(err) === 'BucketNotEmpty') {
        throw new this.ctx.errors.ProvisioningError(
          `S3 BucketNotEmpty while deleting bucket ${physicalId}: the bucket still holds objects (or object versions), and S3 deletes only empty buckets.`,
          {
            cause: err,
            resource: { logicalId, resourceType, physicalId },
            remedy:
              'Empty the bucket (every object version and delete marker) and destroy again, or keep it: set removalPolicy: RETAIN, or autoDeleteObjects: true to have the CDK app empty it.',
          },
        );
      }
      throw this.wrap(err, `deleting bucket ${physicalId}`, logicalId, resourceType, physicalId);
    }
  }

  /** Every attribute derives from the name and region: no AWS call. */
  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    return this.attributesOf(physicalId)[attributeName];
  }

  /** Adopts the bucket the user named (or the template's BucketName) when it exists in this region. */
  async import(input: ResourceImportInput): Promise<ResourceImportResult | null> {
    const name =
      input.knownPhysicalId ??
      (typeof input.properties.BucketName === 'string' ? input.properties.BucketName : undefined);
    if (!name) return null;
    try {
      await this.client().send(new HeadBucketCommand({ Bucket: name }));
    } catch (err) {
      if (isNoSuchBucket(err)) return null;
      throw this.wrap(err, `looking up bucket ${name}`, input.logicalId, input.resourceType, name);
    }
    return { physicalId: name, attributes: this.attributesOf(name) };
  }

  // -------------------------------------------------------------------------
  // Create

  /**
   * Creates the bucket with its tags (the ownership marker included) in one call,
   * so no crash can leave a bucket of ours without the marker. A bucket of that
   * name that already exists is this create's only when it is in this region
   * and its marker says `same-intent`; otherwise ResourceExistsError.
   */
  private async createOrFindOwn(
    name: string,
    properties: Props,
    logicalId: string,
    resourceType: string,
    context: CreateContext,
  ): Promise<'created' | 'found'> {
    const region = context.region ?? this.ctx.region;
    const tags = tagSet({ ...templateTags(properties.Tags), ...(context.ownership?.tags ?? {}) });
    if (region === 'us-east-1') {
      // us-east-1 answers CreateBucket of a bucket you own there with 200, so ask first.
      const probe = await this.probeTags(name, context.signal);
      if (probe.found === 'tags') {
        this.assertSameIntent(name, probe.tags, logicalId, resourceType, context);
        return 'found';
      }
    }
    const ownership = properties.OwnershipControls
      ? (ownershipControls(properties.OwnershipControls).Rules?.[0]?.ObjectOwnership as
          ObjectOwnership | undefined)
      : undefined;
    const configuration = {
      ...(region !== 'us-east-1' ? { LocationConstraint: region as never } : {}),
      ...(tags.length > 0 ? { Tags: tags } : {}),
    };
    try {
      await this.call(
        (c, abortSignal) =>
          c.send(
            new CreateBucketCommand({
              Bucket: name,
              ...(ownership ? { ObjectOwnership: ownership } : {}),
              ...(Object.keys(configuration).length > 0 ? { CreateBucketConfiguration: configuration } : {}),
            }),
            { abortSignal },
          ),
        { signal: context.signal },
      );
      return 'created';
    } catch (err) {
      const code = errorName(err);
      if (code === 'BucketAlreadyOwnedByYou') {
        const where =
          responseHeader(err, 'x-amz-bucket-region') ?? (await this.locationOf(name, context.signal));
        if (where !== region) {
          throw this.exists(
            `Bucket ${name} already exists in your account${where ? ` in ${where}` : ''}, not in ${region}; cdkd does not adopt it.`,
            err,
            logicalId,
            resourceType,
            name,
          );
        }
        const probe = await this.probeTags(name, context.signal);
        if (probe.found !== 'tags') {
          throw this.wrap(
            probe.found === 'unknown' ? probe.error : err,
            `reading the tags of existing bucket ${name} to tell whether an earlier attempt of this deploy made it`,
            logicalId,
            resourceType,
            name,
          );
        }
        this.assertSameIntent(name, probe.tags, logicalId, resourceType, context);
        return 'found';
      }
      if (code === 'BucketAlreadyExists') {
        throw this.exists(
          `Bucket name ${name} is taken by another AWS account (bucket names are global).`,
          err,
          logicalId,
          resourceType,
          name,
        );
      }
      throw this.wrap(err, `creating bucket ${name}`, logicalId, resourceType, name);
    }
  }

  private assertSameIntent(
    name: string,
    tags: Tag[],
    logicalId: string,
    resourceType: string,
    context: CreateContext,
  ): void {
    const verdict = context.ownership?.classify(tags) ?? 'foreign';
    if (verdict === 'same-intent') {
      this.ctx.logger.debug(
        `${logicalId}: bucket ${name} was made by an earlier attempt of this create; using it`,
      );
      return;
    }
    const whose =
      verdict === 'same-resource'
        ? `was made by cdkd for ${context.stackName}/${logicalId} by another deploy`
        : 'was not made by this deploy';
    throw this.exists(
      `Bucket ${name} already exists and ${whose}; cdkd does not adopt it.`,
      undefined,
      logicalId,
      resourceType,
      name,
    );
  }

  /** The bucket's tags (`[]` when it has none), `absent` when there is no such bucket. */
  private async probeTags(name: string, signal?: AbortSignal): Promise<TagProbe> {
    try {
      const out = await this.call(
        (c, abortSignal) => c.send(new GetBucketTaggingCommand({ Bucket: name }), { abortSignal }),
        { signal },
      );
      return { found: 'tags', tags: (out as { TagSet?: Tag[] }).TagSet ?? [] };
    } catch (err) {
      if (errorName(err) === 'NoSuchTagSet') return { found: 'tags', tags: [] };
      if (isNoSuchBucket(err)) return { found: 'absent' };
      return { found: 'unknown', error: err };
    }
  }

  /** The region a bucket lives in, or `undefined` when S3 does not say. */
  private async locationOf(name: string, signal?: AbortSignal): Promise<string | undefined> {
    try {
      const out = (await this.call(
        (c, abortSignal) => c.send(new GetBucketLocationCommand({ Bucket: name }), { abortSignal }),
        { signal },
      )) as { LocationConstraint?: string };
      // The legacy spellings: none for us-east-1, `EU` for eu-west-1.
      const constraint = out.LocationConstraint ?? '';
      return constraint === '' ? 'us-east-1' : constraint === 'EU' ? 'eu-west-1' : constraint;
    } catch {
      return undefined;
    }
  }

  // -------------------------------------------------------------------------
  // Configuration

  /**
   * Brings each wired configuration from `previous` to `desired`, one call per
   * configuration that differs. A configuration removed from the template is
   * reset to S3's default (Delete*; versioning, which cannot be turned off,
   * is suspended). Calls are sequential: S3 answers concurrent configuration
   * calls on one bucket with OperationAborted.
   */
  private async configure(
    bucket: string,
    desired: Props,
    previous: Props,
    logicalId: string,
    resourceType: string,
    signal: AbortSignal | undefined,
    options: { justCreated: boolean; ownershipSetAtCreate: boolean },
  ): Promise<void> {
    const changed = (p: string) => !sameValue(desired[p], previous[p]);
    const steps: Array<[string, Send]> = [];
    const Bucket = bucket;

    if (changed('VersioningConfiguration')) {
      const status = versioningStatus(desired.VersioningConfiguration);
      const before = versioningStatus(previous.VersioningConfiguration);
      const target = status ?? (before === 'Enabled' ? 'Suspended' : undefined);
      if (target && target !== before) {
        steps.push([
          `setting versioning of ${bucket} to ${target}`,
          (c, abortSignal) =>
            c.send(new PutBucketVersioningCommand({ Bucket, VersioningConfiguration: { Status: target } }), {
              abortSignal,
            }),
        ]);
      }
    }
    this.putOrDelete(steps, desired, previous, 'BucketEncryption', 'default encryption', bucket, {
      put: (v) => (c, abortSignal) =>
        c.send(
          new PutBucketEncryptionCommand({
            Bucket,
            ServerSideEncryptionConfiguration: encryptionConfiguration(v),
          }),
          {
            abortSignal,
          },
        ),
      // S3 falls back to SSE-S3, its default for every bucket.
      remove: (c, abortSignal) => c.send(new DeleteBucketEncryptionCommand({ Bucket }), { abortSignal }),
    });
    if (!(options.ownershipSetAtCreate && desired.OwnershipControls)) {
      this.putOrDelete(steps, desired, previous, 'OwnershipControls', 'ownership controls', bucket, {
        put: (v) => (c, abortSignal) =>
          c.send(new PutBucketOwnershipControlsCommand({ Bucket, OwnershipControls: ownershipControls(v) }), {
            abortSignal,
          }),
        remove: (c, abortSignal) =>
          c.send(new DeleteBucketOwnershipControlsCommand({ Bucket }), { abortSignal }),
      });
    }
    this.putOrDelete(
      steps,
      desired,
      previous,
      'PublicAccessBlockConfiguration',
      'public access block',
      bucket,
      {
        put: (v) => (c, abortSignal) =>
          c.send(
            new PutPublicAccessBlockCommand({ Bucket, PublicAccessBlockConfiguration: publicAccessBlock(v) }),
            {
              abortSignal,
            },
          ),
        remove: (c, abortSignal) => c.send(new DeletePublicAccessBlockCommand({ Bucket }), { abortSignal }),
      },
    );
    this.putOrDelete(steps, desired, previous, 'LifecycleConfiguration', 'lifecycle configuration', bucket, {
      put: (v) => (c, abortSignal) => {
        const { Rules, TransitionDefaultMinimumObjectSize } = lifecycleConfiguration(v);
        return c.send(
          new PutBucketLifecycleConfigurationCommand({
            Bucket,
            LifecycleConfiguration: { Rules },
            ...(TransitionDefaultMinimumObjectSize ? { TransitionDefaultMinimumObjectSize } : {}),
          }),
          { abortSignal },
        );
      },
      remove: (c, abortSignal) => c.send(new DeleteBucketLifecycleCommand({ Bucket }), { abortSignal }),
    });
    this.putOrDelete(steps, desired, previous, 'CorsConfiguration', 'CORS configuration', bucket, {
      put: (v) => (c, abortSignal) =>
        c.send(new PutBucketCorsCommand({ Bucket, CORSConfiguration: { CORSRules: corsRules(v) } }), {
          abortSignal,
        }),
      remove: (c, abortSignal) => c.send(new DeleteBucketCorsCommand({ Bucket }), { abortSignal }),
    });
    this.putOrDelete(steps, desired, previous, 'WebsiteConfiguration', 'website configuration', bucket, {
      put: (v) => (c, abortSignal) =>
        c.send(new PutBucketWebsiteCommand({ Bucket, WebsiteConfiguration: websiteConfiguration(v) }), {
          abortSignal,
        }),
      remove: (c, abortSignal) => c.send(new DeleteBucketWebsiteCommand({ Bucket }), { abortSignal }),
    });

    for (const [doing, send] of steps) {
      try {
        await this.call(send, { signal, justCreated: options.justCreated });
      } catch (err) {
        throw this.wrap(err, doing, logicalId, resourceType, bucket);
      }
    }
  }

  private putOrDelete(
    steps: Array<[string, Send]>,
    desired: Props,
    previous: Props,
    property: string,
    what: string,
    bucket: string,
    calls: { put: (value: unknown) => Send; remove: Send },
  ): void {
    const value = desired[property];
    if (sameValue(value, previous[property])) return;
    if (value !== undefined) steps.push([`setting the ${what} of ${bucket}`, calls.put(value)]);
    else if (previous[property] !== undefined)
      steps.push([`removing the ${what} of ${bucket}`, calls.remove]);
  }

  /** Writes the template's tags, keeping the ownership marker the bucket was created with. */
  private async reconcileTags(
    bucket: string,
    tags: Record<string, string>,
    logicalId: string,
    resourceType: string,
    signal?: AbortSignal,
  ): Promise<void> {
    const probe = await this.probeTags(bucket, signal);
    if (probe.found !== 'tags') {
      throw this.wrap(
        probe.found === 'unknown' ? probe.error : new Error('the bucket does not exist'),
        `reading the tags of ${bucket}`,
        logicalId,
        resourceType,
        bucket,
      );
    }
    const kept = Object.fromEntries(
      probe.tags.filter((t) => t.Key?.startsWith(OWNERSHIP_TAG_PREFIX)).map((t) => [t.Key!, t.Value ?? '']),
    );
    const next = tagSet({ ...tags, ...kept });
    try {
      if (next.length === 0) {
        await this.call(
          (c, abortSignal) => c.send(new DeleteBucketTaggingCommand({ Bucket: bucket }), { abortSignal }),
          {
            signal,
          },
        );
      } else {
        await this.call(
          (c, abortSignal) =>
            c.send(new PutBucketTaggingCommand({ Bucket: bucket, Tagging: { TagSet: next } }), {
              abortSignal,
            }),
          { signal },
        );
      }
    } catch (err) {
      throw this.wrap(err, `updating the tags of ${bucket}`, logicalId, resourceType, bucket);
    }
  }

  // -------------------------------------------------------------------------

  /**
   * One S3 call with bounded retries of what S3 documents as retryable: transient
   * errors, OperationAborted (a conflicting configuration call), and — right
   * after CreateBucket only — NoSuchBucket while the new bucket propagates.
   */
  private call(send: Send, options: { signal?: AbortSignal; justCreated?: boolean }): Promise<unknown> {
    const client = this.client();
    return this.ctx.retry(() => send(client, options.signal), {
      isRetryable: (err) =>
        !options.signal?.aborted &&
        (this.ctx.isTransientError(err) ||
          isRetryableBucketConflict(err) ||
          (options.justCreated === true && errorName(err) === 'NoSuchBucket')),
    });
  }

  private attributesOf(name: string): Record<string, string> {
    return bucketAttributes(name, this.ctx.region, this.ctx.partition);
  }

  private exists(
    message: string,
    cause: unknown,
    logicalId: string,
    resourceType: string,
    physicalId: string,
  ): Error {
    return alreadyExists(
      this.ctx,
      message,
      { logicalId, resourceType, physicalId },
      'Set another BucketName (or leave it unset to have cdkd generate one), delete the other bucket, or import it with `cdkd import`.',
      cause,
    );
  }

  private wrap(
    err: unknown,
    doing: string,
    logicalId: string,
    resourceType: string,
    physicalId?: string,
  ): Error {
    const elsewhere = errorName(err) === 'PermanentRedirect';
    const region = elsewhere ? responseHeader(err, 'x-amz-bucket-region') : undefined;
    const remedy = elsewhere
      ? `The bucket is in ${region ?? 'another region'}, not ${this.ctx.region}: run cdkd with the region the stack was deployed to.`
      : undefined;
    return s3Failure(this.ctx, err, doing, { logicalId, resourceType, physicalId }, remedy);
  }
}
