/**
 * Customer managed policies and their versions, and the AWS managed ones
 * every account can read and attach: CreatePolicy, GetPolicy, DeletePolicy,
 * ListPolicies, the version operations (at most 5 versions, IAM User Guide,
 * "Versioning IAM policies"), tags and ListEntitiesForPolicy.
 */
import { AwsError } from '../../core/errors';
import type { Operations } from '../../core/service';
import {
  attachmentCount,
  boundaryUsageCount,
  entitiesFor,
  getManagedPolicy,
  iamArn,
  now,
  uniqueId,
} from './entities';
import { encodeDocument, policySize, validatePolicyDocument } from './policy-document';
import { nameKey, type AccountIam, type IamStore, type ManagedPolicy, type PolicyVersion } from './store';
import {
  byName,
  checkDescription,
  checkName,
  checkPath,
  checkTags,
  date,
  mergeTags,
  paginate,
  removeTags,
  required,
  underPath,
  type Input,
} from './validate';

const MAX_VERSIONS = 5;
/** Managed policy document size quota (characters, white space not counted). */
const POLICY_SIZE_QUOTA = 6144;

export function checkManagedDocument(document: string): string {
  validatePolicyDocument(document, 'identity');
  if (policySize(document) > POLICY_SIZE_QUOTA)
    throw new AwsError('LimitExceeded', `Cannot exceed quota for PolicySize: ${POLICY_SIZE_QUOTA}`);
  return document;
}

export function policyOutput(iam: AccountIam, policy: ManagedPolicy, full = true): Record<string, unknown> {
  return {
    PolicyName: policy.name,
    PolicyId: policy.id,
    Arn: policy.arn,
    Path: policy.path,
    DefaultVersionId: policy.defaultVersionId,
    AttachmentCount: attachmentCount(iam, policy.arn),
    PermissionsBoundaryUsageCount: boundaryUsageCount(iam, policy.arn),
    IsAttachable: true,
    Description: full ? policy.description : undefined,
    CreateDate: date(policy.created),
    UpdateDate: date(policy.updated),
    Tags: full && policy.tags.length ? policy.tags : undefined,
  };
}

function versionOutput(
  policy: ManagedPolicy,
  version: PolicyVersion,
  withDocument: boolean,
): Record<string, unknown> {
  return {
    Document: withDocument ? encodeDocument(version.document) : undefined,
    VersionId: version.versionId,
    IsDefaultVersion: version.versionId === policy.defaultVersionId,
    CreateDate: date(version.created),
  };
}

export function createPolicy(
  store: IamStore,
  account: string,
  input: { PolicyName: string; PolicyDocument: string; Path?: string; Description?: string; Tags?: unknown },
): ManagedPolicy {
  const iam = store.account(account);
  const name = checkName(input.PolicyName, 'policyName', 128);
  const path = checkPath(input.Path);
  const description = checkDescription(input.Description);
  const document = checkManagedDocument(input.PolicyDocument);
  const tags = checkTags(input.Tags);
  if (Object.values(iam.policies).some((p) => nameKey(p.name) === nameKey(name)))
    throw new AwsError(
      'EntityAlreadyExists',
      `A policy called ${name} already exists. Duplicate names are not allowed.`,
    );
  const created = now();
  const policy: ManagedPolicy = {
    account,
    name,
    id: uniqueId('policy'),
    path,
    arn: iamArn(account, 'policy', path, name),
    description,
    tags,
    created,
    updated: created,
    versions: [{ versionId: 'v1', document, created }],
    defaultVersionId: 'v1',
    nextVersion: 2,
  };
  iam.policies[policy.arn] = policy;
  return policy;
}

/** A customer managed policy the account owns (AWS managed ones cannot be changed). */
export function ownPolicy(store: IamStore, account: string, arn: string): ManagedPolicy {
  const policy = getManagedPolicy(store, account, arn);
  if (policy.account !== account)
    throw new AwsError('InvalidInput', `Policy ${arn} is an AWS managed policy and cannot be modified.`);
  return policy;
}

export function createPolicyVersion(
  policy: ManagedPolicy,
  document: string,
  setAsDefault: boolean,
): PolicyVersion {
  checkManagedDocument(document);
  if (policy.versions.length >= MAX_VERSIONS)
    throw new AwsError(
      'LimitExceeded',
      'A managed policy can have up to 5 versions. Before you create a new version, you must delete an existing version.',
    );
  const version: PolicyVersion = { versionId: `v${policy.nextVersion++}`, document, created: now() };
  policy.versions.push(version);
  if (setAsDefault) {
    policy.defaultVersionId = version.versionId;
    policy.updated = version.created;
  }
  return version;
}

function versionOf(policy: ManagedPolicy, versionId: string): PolicyVersion {
  const version = policy.versions.find((v) => v.versionId === versionId);
  if (!version)
    throw new AwsError(
      'NoSuchEntity',
      `Policy ${policy.arn} version ${versionId} does not exist or is not attachable.`,
    );
  return version;
}

export function deletePolicyVersion(policy: ManagedPolicy, versionId: string): void {
  versionOf(policy, versionId);
  if (versionId === policy.defaultVersionId)
    throw new AwsError('DeleteConflict', 'Cannot delete the default version of a policy.');
  policy.versions = policy.versions.filter((v) => v.versionId !== versionId);
}

export function deletePolicy(store: IamStore, account: string, arn: string): void {
  const iam = store.account(account);
  const policy = ownPolicy(store, account, arn);
  if (attachmentCount(iam, arn) > 0)
    throw new AwsError('DeleteConflict', 'Cannot delete a policy attached to entities.');
  if (policy.versions.length > 1)
    throw new AwsError(
      'DeleteConflict',
      "This policy has more than one version. Before you delete a policy, you must delete the policy's versions. The default version is deleted with the policy.",
    );
  delete iam.policies[arn];
}

/** The default version's document. */
export function defaultDocument(policy: ManagedPolicy): string {
  return policy.versions.find((v) => v.versionId === policy.defaultVersionId)!.document;
}

export function managedPolicyOperations(store: IamStore): Operations {
  return {
    CreatePolicy: (ctx, input: Input) => {
      const policy = createPolicy(store, ctx.account, {
        PolicyName: required(input, 'PolicyName'),
        PolicyDocument: required(input, 'PolicyDocument'),
        Path: input.Path as string | undefined,
        Description: input.Description as string | undefined,
        Tags: input.Tags,
      });
      return { Policy: policyOutput(store.account(ctx.account), policy) };
    },
    GetPolicy: (ctx, input: Input) => ({
      Policy: policyOutput(
        store.account(ctx.account),
        getManagedPolicy(store, ctx.account, required(input, 'PolicyArn')),
      ),
    }),
    DeletePolicy: (ctx, input: Input) => {
      deletePolicy(store, ctx.account, required(input, 'PolicyArn'));
      return {};
    },
    ListPolicies: (ctx, input: Input) => {
      const iam = store.account(ctx.account);
      const scope = (input.Scope as string | undefined) ?? 'All';
      let policies = [
        ...(scope === 'AWS' ? [] : Object.values(iam.policies)),
        ...(scope === 'Local' ? [] : [...store.awsManaged.values()]),
      ];
      policies = byName(underPath(policies, input.PathPrefix));
      if (input.OnlyAttached === true) policies = policies.filter((p) => attachmentCount(iam, p.arn) > 0);
      const page = paginate(policies, input);
      return {
        Policies: page.items.map((p) => policyOutput(iam, p, false)),
        IsTruncated: page.IsTruncated,
        Marker: page.Marker,
      };
    },
    CreatePolicyVersion: (ctx, input: Input) => {
      const policy = ownPolicy(store, ctx.account, required(input, 'PolicyArn'));
      const version = createPolicyVersion(
        policy,
        required(input, 'PolicyDocument'),
        input.SetAsDefault === true,
      );
      return { PolicyVersion: versionOutput(policy, version, false) };
    },
    GetPolicyVersion: (ctx, input: Input) => {
      const policy = getManagedPolicy(store, ctx.account, required(input, 'PolicyArn'));
      return { PolicyVersion: versionOutput(policy, versionOf(policy, required(input, 'VersionId')), true) };
    },
    ListPolicyVersions: (ctx, input: Input) => {
      const policy = getManagedPolicy(store, ctx.account, required(input, 'PolicyArn'));
      const page = paginate([...policy.versions].reverse(), input);
      return {
        Versions: page.items.map((v) => versionOutput(policy, v, false)),
        IsTruncated: page.IsTruncated,
        Marker: page.Marker,
      };
    },
    DeletePolicyVersion: (ctx, input: Input) => {
      deletePolicyVersion(
        ownPolicy(store, ctx.account, required(input, 'PolicyArn')),
        required(input, 'VersionId'),
      );
      return {};
    },
    SetDefaultPolicyVersion: (ctx, input: Input) => {
      const policy = ownPolicy(store, ctx.account, required(input, 'PolicyArn'));
      const version = versionOf(policy, required(input, 'VersionId'));
      policy.defaultVersionId = version.versionId;
      policy.updated = now();
      return {};
    },
    TagPolicy: (ctx, input: Input) => {
      const policy = ownPolicy(store, ctx.account, required(input, 'PolicyArn'));
      policy.tags = mergeTags(policy.tags, checkTags(input.Tags, policy.tags));
      return {};
    },
    UntagPolicy: (ctx, input: Input) => {
      const policy = ownPolicy(store, ctx.account, required(input, 'PolicyArn'));
      policy.tags = removeTags(policy.tags, input.TagKeys);
      return {};
    },
    ListPolicyTags: (ctx, input: Input) => {
      const page = paginate(getManagedPolicy(store, ctx.account, required(input, 'PolicyArn')).tags, input);
      return { Tags: page.items, IsTruncated: page.IsTruncated, Marker: page.Marker };
    },
    ListEntitiesForPolicy: (ctx, input: Input) => {
      const iam = store.account(ctx.account);
      const arn = required(input, 'PolicyArn');
      getManagedPolicy(store, ctx.account, arn);
      const filter = input.EntityFilter as string | undefined;
      const prefix = input.PathPrefix === undefined ? '/' : String(input.PathPrefix);
      const { roles, users, groups } = entitiesFor(iam, arn);
      const want = (kind: string) => !filter || filter === kind;
      const entries = [
        ...(want('Group')
          ? byName(groups)
              .filter((g) => g.path.startsWith(prefix))
              .map((g) => ({ kind: 'g', name: g.name, id: g.id }))
          : []),
        ...(want('User')
          ? byName(users)
              .filter((u) => u.path.startsWith(prefix))
              .map((u) => ({ kind: 'u', name: u.name, id: u.id }))
          : []),
        ...(want('Role')
          ? byName(roles)
              .filter((r) => r.path.startsWith(prefix))
              .map((r) => ({ kind: 'r', name: r.name, id: r.id }))
          : []),
      ];
      const page = paginate(entries, input);
      return {
        PolicyGroups: page.items
          .filter((e) => e.kind === 'g')
          .map((e) => ({ GroupName: e.name, GroupId: e.id })),
        PolicyUsers: page.items
          .filter((e) => e.kind === 'u')
          .map((e) => ({ UserName: e.name, UserId: e.id })),
        PolicyRoles: page.items
          .filter((e) => e.kind === 'r')
          .map((e) => ({ RoleName: e.name, RoleId: e.id })),
        IsTruncated: page.IsTruncated,
        Marker: page.Marker,
      };
    },
  };
}
