/**
 * IAM's state. IAM is global: everything is kept per account, never per
 * region. Names are unique per account regardless of case (IAM User Guide,
 * "IAM identifiers": "names are not distinguished by case"), so entities are
 * keyed by their lower-cased name and keep the spelling they were created with.
 * Dates are ISO strings, so a snapshot is plain JSON.
 */
import type { ServiceStore } from '../../core/service';
import { AWS_MANAGED_POLICIES } from './aws-managed';

export interface Tag {
  Key: string;
  Value: string;
}

export interface InlinePolicy {
  name: string;
  /** The document as it was sent (decoded). */
  document: string;
}

/** What roles, users and groups share: a name, a path, inline and attached policies. */
export interface Principal {
  name: string;
  id: string;
  path: string;
  arn: string;
  created: string;
  /** By lower-cased policy name. */
  inlinePolicies: Record<string, InlinePolicy>;
  /** ARNs of attached managed policies, in attachment order. */
  attached: string[];
}

export interface Role extends Principal {
  assumeRolePolicyDocument: string;
  description?: string;
  maxSessionDuration: number;
  permissionsBoundary?: string;
  tags: Tag[];
}

export interface LoginProfile {
  created: string;
  passwordResetRequired: boolean;
}

export interface User extends Principal {
  permissionsBoundary?: string;
  tags: Tag[];
  loginProfile?: LoginProfile;
}

export interface Group extends Principal {
  /** Lower-cased names of member users, in the order they were added. */
  members: string[];
}

export interface PolicyVersion {
  versionId: string;
  document: string;
  created: string;
}

export interface ManagedPolicy {
  /** Owning account, or `aws` for an AWS managed policy. */
  account: string;
  name: string;
  id: string;
  path: string;
  arn: string;
  description?: string;
  tags: Tag[];
  created: string;
  updated: string;
  /** Oldest first. */
  versions: PolicyVersion[];
  defaultVersionId: string;
  /** Number of the next version id (`v<n>`); numbers are never reused. */
  nextVersion: number;
}

export interface InstanceProfile {
  name: string;
  id: string;
  path: string;
  arn: string;
  created: string;
  tags: Tag[];
  /** Lower-cased role names (IAM allows one). */
  roles: string[];
}

export interface AccessKey {
  id: string;
  /** Lower-cased owner name. */
  user: string;
  status: 'Active' | 'Inactive';
  created: string;
}

export interface OidcProvider {
  arn: string;
  /** Without the `https://` scheme, as IAM reports it. */
  url: string;
  clientIds: string[];
  thumbprints: string[];
  tags: Tag[];
  created: string;
}

/**
 * CloudFormation constructs with no IAM object of their own, made through
 * Cloud Control: an `AWS::IAM::Policy` (one inline policy put on several
 * principals) and an `AWS::IAM::UserToGroupAddition` (memberships). The
 * inline policies and memberships themselves live on the principals.
 */
export interface PolicyConstruct {
  id: string;
  policyName: string;
  document: string;
  roles: string[];
  users: string[];
  groups: string[];
}

export interface UserToGroupConstruct {
  id: string;
  groupName: string;
  users: string[];
}

/** One account's IAM. */
export interface AccountIam {
  roles: Record<string, Role>;
  users: Record<string, User>;
  groups: Record<string, Group>;
  /** Customer managed policies by ARN. */
  policies: Record<string, ManagedPolicy>;
  instanceProfiles: Record<string, InstanceProfile>;
  accessKeys: Record<string, AccessKey>;
  oidcProviders: Record<string, OidcProvider>;
  policyConstructs: Record<string, PolicyConstruct>;
  userToGroupConstructs: Record<string, UserToGroupConstruct>;
}

function emptyAccount(): AccountIam {
  return {
    roles: {},
    users: {},
    groups: {},
    policies: {},
    instanceProfiles: {},
    accessKeys: {},
    oidcProviders: {},
    policyConstructs: {},
    userToGroupConstructs: {},
  };
}

interface Snapshot {
  accounts: Record<string, AccountIam>;
  /** AWS managed policies added through the control API (the built-in set is not saved). */
  addedAwsManaged: ManagedPolicy[];
}

export class IamStore implements ServiceStore {
  accounts: Record<string, AccountIam> = {};
  /** AWS managed policies by ARN: the built-in set plus any added through the control API. */
  awsManaged = new Map<string, ManagedPolicy>();
  private addedAwsManaged: ManagedPolicy[] = [];

  constructor() {
    this.seedAwsManaged();
  }

  private seedAwsManaged(): void {
    this.awsManaged = new Map(AWS_MANAGED_POLICIES().map((p) => [p.arn, p]));
    for (const p of this.addedAwsManaged) this.awsManaged.set(p.arn, p);
  }

  /** The account's IAM, created on first use. */
  account(account: string): AccountIam {
    return (this.accounts[account] ??= emptyAccount());
  }

  /** Every account that holds anything, with its IAM. */
  entries(): Array<[string, AccountIam]> {
    return Object.entries(this.accounts);
  }

  /** A managed policy (customer or AWS) by ARN, as the caller's account sees it. */
  managedPolicy(account: string, arn: string): ManagedPolicy | undefined {
    return this.account(account).policies[arn] ?? this.awsManaged.get(arn);
  }

  addAwsManaged(policy: ManagedPolicy): void {
    this.addedAwsManaged = this.addedAwsManaged.filter((p) => p.arn !== policy.arn);
    this.addedAwsManaged.push(policy);
    this.awsManaged.set(policy.arn, policy);
  }

  clear(): void {
    this.accounts = {};
    this.addedAwsManaged = [];
    this.seedAwsManaged();
  }

  snapshot(): Snapshot {
    return JSON.parse(
      JSON.stringify({ accounts: this.accounts, addedAwsManaged: this.addedAwsManaged }),
    ) as Snapshot;
  }

  restore(saved: unknown): void {
    const data = saved as Partial<Snapshot>;
    this.accounts = data.accounts ?? {};
    this.addedAwsManaged = data.addedAwsManaged ?? [];
    this.seedAwsManaged();
  }
}

/** IAM's map key of a name: IAM names are unique regardless of case. */
export function nameKey(name: string): string {
  return name.toLowerCase();
}
