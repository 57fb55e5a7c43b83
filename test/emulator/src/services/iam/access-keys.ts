/**
 * IAM access keys: at most two per user; the secret is returned once, by
 * CreateAccessKey, and never stored (IAM API Reference, CreateAccessKey).
 */
import { AwsError } from '../../core/errors';
import { secretKey } from '../../core/ids';
import type { CallContext, Operations } from '../../core/service';
import { getUser, noSuchEntity, now, uniqueId } from './entities';
import { nameKey, type AccessKey, type AccountIam, type IamStore } from './store';
import { date, paginate, required, validationError, type Input } from './validate';

const KEYS_PER_USER = 2;

export function accessKeyOutput(iam: AccountIam, key: AccessKey): Record<string, unknown> {
  return {
    UserName: iam.users[key.user]?.name ?? key.user,
    AccessKeyId: key.id,
    Status: key.status,
    CreateDate: date(key.created),
  };
}

function checkStatus(value: unknown): 'Active' | 'Inactive' {
  if (value !== 'Active' && value !== 'Inactive')
    throw validationError('status', value, 'Member must satisfy enum value set: [Active, Inactive, Expired]');
  return value;
}

/** Creates a key; the secret is only in the return value. */
export function createAccessKey(
  iam: AccountIam,
  userName: string,
  status: 'Active' | 'Inactive' = 'Active',
): { key: AccessKey; secret: string } {
  const user = getUser(iam, userName);
  const owner = nameKey(user.name);
  if (Object.values(iam.accessKeys).filter((k) => k.user === owner).length >= KEYS_PER_USER)
    throw new AwsError('LimitExceeded', `Cannot exceed quota for AccessKeysPerUser: ${KEYS_PER_USER}`);
  const key: AccessKey = { id: uniqueId('accessKey'), user: owner, status, created: now() };
  iam.accessKeys[key.id] = key;
  return { key, secret: secretKey() };
}

/** The key, when it belongs to the named user (or any user when none is named). */
export function findAccessKey(iam: AccountIam, id: string, userName?: string): AccessKey {
  const key = iam.accessKeys[id];
  if (!key || (userName !== undefined && key.user !== nameKey(userName)))
    throw noSuchEntity(`The Access Key with id ${id} cannot be found.`);
  return key;
}

function userNameOf(ctx: CallContext, input: Input): string {
  if (typeof input.UserName === 'string' && input.UserName) return input.UserName;
  // Without UserName, IAM acts on the caller's own keys; the emulator's callers are account roots or roles.
  throw new AwsError(
    'ValidationError',
    `Must specify userName when calling with non-User credentials (${ctx.callerArn}).`,
  );
}

export function accessKeyOperations(store: IamStore): Operations {
  return {
    CreateAccessKey: (ctx, input: Input) => {
      const iam = store.account(ctx.account);
      const { key, secret } = createAccessKey(iam, userNameOf(ctx, input));
      return { AccessKey: { ...accessKeyOutput(iam, key), SecretAccessKey: secret } };
    },
    ListAccessKeys: (ctx, input: Input) => {
      const iam = store.account(ctx.account);
      const user = getUser(iam, userNameOf(ctx, input));
      const keys = Object.values(iam.accessKeys).filter((k) => k.user === nameKey(user.name));
      const page = paginate(keys, input);
      return {
        AccessKeyMetadata: page.items.map((k) => accessKeyOutput(iam, k)),
        IsTruncated: page.IsTruncated,
        Marker: page.Marker,
      };
    },
    UpdateAccessKey: (ctx, input: Input) => {
      const iam = store.account(ctx.account);
      const userName = input.UserName === undefined ? undefined : String(input.UserName);
      if (userName !== undefined) getUser(iam, userName);
      const key = findAccessKey(iam, required(input, 'AccessKeyId'), userName);
      key.status = checkStatus(input.Status);
      return {};
    },
    DeleteAccessKey: (ctx, input: Input) => {
      const iam = store.account(ctx.account);
      const userName = input.UserName === undefined ? undefined : String(input.UserName);
      if (userName !== undefined) getUser(iam, userName);
      const key = findAccessKey(iam, required(input, 'AccessKeyId'), userName);
      delete iam.accessKeys[key.id];
      return {};
    },
    GetAccessKeyLastUsed: (ctx, input: Input) => {
      const iam = store.account(ctx.account);
      const key = findAccessKey(iam, required(input, 'AccessKeyId'));
      return {
        UserName: iam.users[key.user]?.name ?? key.user,
        AccessKeyLastUsed: { ServiceName: 'N/A', Region: 'N/A' },
      };
    },
  };
}
