/**
 * AWS::IAM::AccessKey through IAM. The physical id is the access key id; the
 * secret is returned once, by CreateAccessKey, and is reported as no-echo
 * (`noEchoAttributeNames: ['SecretAccessKey']`).
 *
 * CreateAccessKey takes no idempotency token and keys carry no tags, so a
 * create whose reply was lost cannot find its key again: it is an orphan
 * holding one of the user's two key slots. The provider reconciles instead
 * (provider-development.md, "A reconcile is not simply..."):
 * - creates for one user are serialized in this process, with the baseline
 *   read (ListAccessKeys), the create and the reconcile inside the lock, so a
 *   sibling create cannot interleave;
 * - the reconcile runs from the failure path of the attempt that took the
 *   baseline (and after a success the SDK reached only by retrying, when its
 *   first, lost request may have made a key too), never from the top of a
 *   later attempt;
 * - a key is deleted only when it is not in the baseline, was created at or
 *   after the attempt started (less a clock-skew margin), and is not a key
 *   this process created and returned: those are never deleted;
 * - a key it declines to delete is reported at warn, with its id.
 * What this cannot cover: a process that dies between CreateAccessKey and
 * recording the key leaves the key behind; the next run does not know it.
 */
import {
  CreateAccessKeyCommand,
  DeleteAccessKeyCommand,
  ListAccessKeysCommand,
  UpdateAccessKeyCommand,
  type AccessKeyMetadata,
} from '@aws-sdk/client-iam';
import type {
  CreateContext,
  DeleteContext,
  ProviderContext,
  ResourceCreateResult,
  ResourceDeleteResult,
  ResourceProvider,
  ResourceUpdateResult,
  UpdateContext,
} from '@cdkd/plugin-api';
import { isNoSuchEntity, sdkAttempts } from './errors';
import { IamSupport, optionalString, type ResourceRef } from './iam-support';

/** Allowance for the difference between this machine's clock and IAM's. */
const CLOCK_SKEW_MS = 5_000;

/** Why a delete whose record names no user does nothing (DeleteAccessKey without a user acts on the caller's own keys). */
export const ACCESS_KEY_RECORD_INCOMPLETE_REASON =
  "the state record names no UserName, and DeleteAccessKey without one acts on the caller's own keys; " +
  'delete the key in the IAM console, then remove the record with cdkd state orphan (the key is deleted with its user if that is in the same stack)';

/** Creates per user, one at a time (keyed by lower-cased user name: IAM names ignore case). */
const userLocks = new Map<string, Promise<unknown>>();
/** Keys this process created and returned: never deleted by a reconcile. */
const createdKeys = new Set<string>();

async function serialized<T>(user: string, work: () => Promise<T>): Promise<T> {
  const key = user.toLowerCase();
  const previous = userLocks.get(key) ?? Promise.resolve();
  const run = previous.then(work, work);
  const settled = run.catch(() => undefined);
  userLocks.set(key, settled);
  try {
    return await run;
  } finally {
    if (userLocks.get(key) === settled) userLocks.delete(key);
  }
}

function status(value: unknown): 'Active' | 'Inactive' {
  return value === 'Inactive' ? 'Inactive' : 'Active';
}

export class IamAccessKeyProvider implements ResourceProvider {
  private readonly sup: IamSupport;

  constructor(ctx: ProviderContext) {
    this.sup = new IamSupport(ctx);
  }

  private async keysOf(UserName: string, signal?: AbortSignal): Promise<AccessKeyMetadata[]> {
    const out: AccessKeyMetadata[] = [];
    let marker: string | undefined;
    do {
      const page = await this.sup.send(signal, (c, o) =>
        c.send(new ListAccessKeysCommand({ UserName, Marker: marker }), o),
      );
      out.push(...(page.AccessKeyMetadata ?? []));
      marker = page.IsTruncated ? page.Marker : undefined;
    } while (marker);
    return out;
  }

  async create(
    logicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const { sup } = this;
    const signal = context.signal;
    const ref: ResourceRef = { logicalId, resourceType };
    const userName = optionalString(properties.UserName);
    if (!userName)
      throw new sup.ctx.errors.ProvisioningError(`${logicalId} needs a UserName.`, {
        resource: ref,
        remedy: `Set UserName of ${logicalId}: without it IAM would create a key for the deploying principal.`,
      });
    return serialized(userName, async () => {
      let baseline: Set<string>;
      try {
        baseline = new Set((await this.keysOf(userName, signal)).map((k) => k.AccessKeyId!));
      } catch (err) {
        throw sup.wrap(err, `listing the access keys of user ${userName}`, ref);
      }
      const started = Date.now();
      let keyId: string | undefined;
      try {
        const out = await sup.sendReferencing(signal, (c, o) =>
          c.send(new CreateAccessKeyCommand({ UserName: userName }), o),
        );
        const key = out.AccessKey!;
        keyId = key.AccessKeyId!;
        createdKeys.add(keyId);
        if (status(properties.Status) === 'Inactive')
          await sup.send(signal, (c, o) =>
            c.send(
              new UpdateAccessKeyCommand({ UserName: userName, AccessKeyId: keyId, Status: 'Inactive' }),
              o,
            ),
          );
        // The SDK retried: its first request may have made a key whose reply was lost.
        if (sdkAttempts(out) > 1) await this.reconcile(userName, baseline, started, logicalId, signal);
        return {
          physicalId: keyId,
          attributes: { Id: keyId, SecretAccessKey: key.SecretAccessKey },
          noEchoAttributeNames: ['SecretAccessKey'],
        };
      } catch (err) {
        if (keyId) {
          // Made, then a follow-up failed: the key was never reported, so it goes.
          createdKeys.delete(keyId);
          await sup
            .send(signal, (c, o) =>
              c.send(new DeleteAccessKeyCommand({ UserName: userName, AccessKeyId: keyId }), o),
            )
            .catch(() =>
              sup.ctx.logger.warn(
                `${logicalId}: could not delete access key ${keyId} of user ${userName} after its create failed; delete it yourself`,
              ),
            );
        }
        await this.reconcile(userName, baseline, started, logicalId, signal).catch(
          (reconcileError: unknown) =>
            sup.ctx.logger.warn(
              `${logicalId}: could not check user ${userName} for an access key a failed create may have left: ${
                reconcileError instanceof Error ? reconcileError.message : String(reconcileError)
              }`,
            ),
        );
        throw sup.wrap(err, `creating an access key for user ${userName}`, ref);
      }
    });
  }

  /** Deletes the keys this attempt made but never got back; reports the ones it cannot attribute. */
  private async reconcile(
    userName: string,
    baseline: Set<string>,
    started: number,
    logicalId: string,
    signal?: AbortSignal,
  ): Promise<void> {
    for (const key of await this.keysOf(userName, signal)) {
      const id = key.AccessKeyId!;
      if (baseline.has(id) || createdKeys.has(id)) continue;
      const made = key.CreateDate?.getTime() ?? 0;
      if (made < started - CLOCK_SKEW_MS) {
        this.sup.ctx.logger.warn(
          `${logicalId}: user ${userName} has access key ${id}, which appeared during the create but is older than it; left in place`,
        );
        continue;
      }
      await this.sup.send(signal, (c, o) =>
        c.send(new DeleteAccessKeyCommand({ UserName: userName, AccessKeyId: id }), o),
      );
      this.sup.ctx.logger.warn(
        `${logicalId}: deleted access key ${id} of user ${userName}, left by a create whose reply was lost`,
      );
    }
  }

  async update(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    previous: Record<string, unknown>,
    context?: UpdateContext,
  ): Promise<ResourceUpdateResult> {
    const ref: ResourceRef = { logicalId, resourceType, physicalId };
    await this.sup.assertRegion(context?.expectedRegion, ref, 'pre-update');
    const next = status(properties.Status);
    // A removed Status goes back to Active, IAM's default.
    if (next !== status(previous.Status)) {
      const UserName = optionalString(properties.UserName);
      try {
        await this.sup.send(context?.signal, (c, o) =>
          c.send(new UpdateAccessKeyCommand({ UserName, AccessKeyId: physicalId, Status: next }), o),
        );
      } catch (err) {
        throw this.sup.wrap(err, `setting access key ${physicalId} ${next}`, ref);
      }
    }
    // No attributes: the secret cannot be read again, and the recorded ones stay.
    return { physicalId, wasReplaced: false };
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties?: Record<string, unknown>,
    context?: DeleteContext,
  ): Promise<void | ResourceDeleteResult> {
    const ref: ResourceRef = { logicalId, resourceType, physicalId };
    const UserName = optionalString(properties?.UserName);
    if (!UserName) {
      this.sup.ctx.logger.warn(`${logicalId}: not deleted: ${ACCESS_KEY_RECORD_INCOMPLETE_REASON}`);
      return { outcome: 'skipped', reason: ACCESS_KEY_RECORD_INCOMPLETE_REASON };
    }
    await this.sup.deleteOrGone('access key', ref, context?.expectedRegion, async () => {
      await this.sup.send(context?.signal, (c, o) =>
        c.send(new DeleteAccessKeyCommand({ UserName, AccessKeyId: physicalId }), o),
      );
      createdKeys.delete(physicalId);
    });
  }

  /** `Id` is the physical id; the secret cannot be read back (undefined). */
  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    return attributeName === 'Id' ? physicalId : undefined;
  }

  async readCurrentState(
    physicalId: string,
    _logicalId: string,
    _resourceType: string,
    properties?: Record<string, unknown>,
  ): Promise<Record<string, unknown> | undefined> {
    const UserName = optionalString(properties?.UserName);
    if (!UserName) return undefined;
    let keys: AccessKeyMetadata[];
    try {
      keys = await this.keysOf(UserName);
    } catch (err) {
      if (isNoSuchEntity(err)) return undefined;
      throw err;
    }
    const key = keys.find((k) => k.AccessKeyId === physicalId);
    return key ? { UserName: key.UserName, Status: key.Status, Serial: properties?.Serial } : undefined;
  }
}
