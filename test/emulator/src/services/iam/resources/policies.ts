/**
 * `AWS::IAM::ManagedPolicy` (a customer managed policy: a new document is a
 * new default version), the inline policy types `AWS::IAM::RolePolicy`,
 * `UserPolicy` and `GroupPolicy` (one inline policy of one principal), and
 * `AWS::IAM::Policy`, which IAM has no object for: one inline policy put on
 * several principals. Cloud Control keeps an `AWS::IAM::Policy` as a record
 * of what it put where; the policies themselves live on the principals.
 */
import { upperAlnum } from '../../../core/ids';
import {
  alreadyExists,
  notFound,
  type ResourceProvider,
  type ResourceScope,
  type StoredResource,
} from '../../../core/resources';
import type { ResourceSchema } from '../../../core/resource-schema';
import type { InventoryItem } from '../../../core/service';
import { attachmentCount, boundaryUsageCount, entitiesFor } from '../entities';
import {
  createPolicy,
  createPolicyVersion,
  defaultDocument,
  deletePolicy,
  deletePolicyVersion,
} from '../managed-policies';
import {
  PRINCIPAL_KINDS,
  attachPolicy,
  deleteInlinePolicy,
  detachPolicy,
  putInlinePolicy,
  type PrincipalKind,
} from '../principal-policies';
import {
  nameKey,
  type AccountIam,
  type IamStore,
  type ManagedPolicy,
  type PolicyConstruct,
  type Principal,
} from '../store';
import { documentObject, documentText, handler, item } from './common';
import { stored } from './principals';

type Model = Record<string, unknown>;
type Kind = PrincipalKind;

function managedPolicyModel(iam: AccountIam, policy: ManagedPolicy): Model {
  const { roles, users, groups } = entitiesFor(iam, policy.arn);
  return {
    PolicyArn: policy.arn,
    ManagedPolicyName: policy.name,
    Path: policy.path,
    Description: policy.description,
    PolicyDocument: documentObject(defaultDocument(policy)),
    Roles: roles.length ? roles.map((r) => r.name) : undefined,
    Users: users.length ? users.map((u) => u.name) : undefined,
    Groups: groups.length ? groups.map((g) => g.name) : undefined,
    AttachmentCount: attachmentCount(iam, policy.arn),
    PermissionsBoundaryUsageCount: boundaryUsageCount(iam, policy.arn),
    CreateDate: policy.created,
    UpdateDate: policy.updated,
    DefaultVersionId: policy.defaultVersionId,
    IsAttachable: true,
    PolicyId: policy.id,
  };
}

/** Attaches the policy to exactly the principals named in the model's `Roles`, `Users`, `Groups`. */
function applyAttachments(store: IamStore, account: string, policy: ManagedPolicy, desired: Model): void {
  const iam = store.account(account);
  const tables = [iam.roles, iam.users, iam.groups] as const;
  const members = ['Roles', 'Users', 'Groups'] as const;
  PRINCIPAL_KINDS.forEach((kind, i) => {
    const wanted = ((desired[members[i]!] as string[] | undefined) ?? []).map((n) => kind.get(iam, n));
    for (const principal of Object.values(tables[i]!))
      if (principal.attached.includes(policy.arn) && !wanted.includes(principal))
        detachPolicy(principal, policy.arn);
    for (const principal of wanted) attachPolicy(store, kind, account, principal, policy.arn);
  });
}

export class ManagedPolicyProvider implements ResourceProvider {
  readonly typeName = 'AWS::IAM::ManagedPolicy';
  constructor(private readonly store: IamStore) {}

  create(scope: ResourceScope, schema: ResourceSchema, desired: Model): StoredResource {
    const iam = this.store.account(scope.account);
    const name =
      typeof desired.ManagedPolicyName === 'string'
        ? desired.ManagedPolicyName
        : `ManagedPolicy-${upperAlnum(12)}`;
    const existing = Object.values(iam.policies).find((p) => nameKey(p.name) === nameKey(name));
    if (existing) throw alreadyExists(schema.typeName, existing.arn);
    return handler(() => {
      const policy = createPolicy(this.store, scope.account, {
        PolicyName: name,
        PolicyDocument: documentText(desired.PolicyDocument),
        Path: desired.Path as string | undefined,
        Description: desired.Description as string | undefined,
      });
      try {
        applyAttachments(this.store, scope.account, policy, desired);
      } catch (err) {
        const principals: Principal[] = [
          ...Object.values(iam.roles),
          ...Object.values(iam.users),
          ...Object.values(iam.groups),
        ];
        for (const p of principals) p.attached = p.attached.filter((a) => a !== policy.arn);
        delete iam.policies[policy.arn];
        throw err;
      }
      return stored(policy.arn, managedPolicyModel(iam, policy));
    });
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const iam = this.store.account(scope.account);
    const policy = iam.policies[identifier];
    return policy ? stored(policy.arn, managedPolicyModel(iam, policy)) : undefined;
  }

  update(scope: ResourceScope, schema: ResourceSchema, identifier: string, desired: Model): StoredResource {
    const iam = this.store.account(scope.account);
    const policy = iam.policies[identifier];
    if (!policy) throw notFound(schema.typeName, identifier);
    return handler(() => {
      const document = documentText(desired.PolicyDocument);
      if (document !== defaultDocument(policy)) {
        // The handler makes room for the new version by deleting the oldest non-default one.
        if (policy.versions.length >= 5) {
          const oldest = policy.versions.find((v) => v.versionId !== policy.defaultVersionId)!;
          deletePolicyVersion(policy, oldest.versionId);
        }
        createPolicyVersion(policy, document, true);
      }
      applyAttachments(this.store, scope.account, policy, desired);
      return stored(policy.arn, managedPolicyModel(iam, policy));
    });
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const iam = this.store.account(scope.account);
    const policy = iam.policies[identifier];
    if (!policy) throw notFound(schema.typeName, identifier);
    handler(() => {
      applyAttachments(this.store, scope.account, policy, {});
      for (const v of [...policy.versions])
        if (v.versionId !== policy.defaultVersionId) deletePolicyVersion(policy, v.versionId);
      deletePolicy(this.store, scope.account, policy.arn);
    });
  }

  list(scope: ResourceScope): StoredResource[] {
    const iam = this.store.account(scope.account);
    return Object.values(iam.policies).map((p) => stored(p.arn, managedPolicyModel(iam, p)));
  }

  inventory(): InventoryItem[] {
    return this.store
      .entries()
      .flatMap(([account, iam]) =>
        Object.values(iam.policies).map((p) =>
          item(account, this.typeName, p.arn, stored(p.arn, managedPolicyModel(iam, p)).model),
        ),
      );
  }
}

/**
 * One inline policy of one principal (`AWS::IAM::RolePolicy` etc., identifier
 * `<PolicyName>|<RoleName>`). Not listed in the inventory: an inline policy
 * is part of its principal, whose model carries it.
 */
export class InlinePolicyProvider implements ResourceProvider {
  readonly typeName: string;
  private readonly member: string;

  constructor(
    private readonly store: IamStore,
    private readonly kind: Kind,
  ) {
    this.typeName = `AWS::IAM::${kind.label}Policy`;
    this.member = `${kind.label}Name`;
  }

  private principal(account: string, name: string) {
    return handler(() => this.kind.get(this.store.account(account), name));
  }

  private model(principalName: string, policyName: string, document: string): StoredResource {
    return stored(`${policyName}|${principalName}`, {
      PolicyName: policyName,
      [this.member]: principalName,
      PolicyDocument: documentObject(document),
    });
  }

  create(scope: ResourceScope, schema: ResourceSchema, desired: Model): StoredResource {
    const principal = this.principal(scope.account, String(desired[this.member]));
    const policyName = String(desired.PolicyName);
    if (principal.inlinePolicies[nameKey(policyName)])
      throw alreadyExists(schema.typeName, `${policyName}|${principal.name}`);
    handler(() => putInlinePolicy(this.kind, principal, policyName, documentText(desired.PolicyDocument)));
    return this.model(principal.name, policyName, documentText(desired.PolicyDocument));
  }

  private find(account: string, identifier: string) {
    const [policyName, principalName] = identifier.split('|');
    const principal = principalName
      ? tryGet(() => this.kind.get(this.store.account(account), principalName))
      : undefined;
    const policy = principal?.inlinePolicies[nameKey(policyName ?? '')];
    return principal && policy ? { principal, policy } : undefined;
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const found = this.find(scope.account, identifier);
    return found ? this.model(found.principal.name, found.policy.name, found.policy.document) : undefined;
  }

  update(scope: ResourceScope, schema: ResourceSchema, identifier: string, desired: Model): StoredResource {
    const found = this.find(scope.account, identifier);
    if (!found) throw notFound(schema.typeName, identifier);
    const document = documentText(desired.PolicyDocument);
    handler(() => putInlinePolicy(this.kind, found.principal, found.policy.name, document));
    return this.model(found.principal.name, found.policy.name, document);
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const found = this.find(scope.account, identifier);
    if (!found) throw notFound(schema.typeName, identifier);
    handler(() => deleteInlinePolicy(this.kind, found.principal, found.policy.name));
  }

  list(scope: ResourceScope): StoredResource[] {
    const iam = this.store.account(scope.account);
    const tables: Array<Record<string, Principal>> = [iam.roles, iam.users, iam.groups];
    return Object.values(tables[PRINCIPAL_KINDS.indexOf(this.kind)]!).flatMap((p) =>
      Object.values(p.inlinePolicies).map((policy) => this.model(p.name, policy.name, policy.document)),
    );
  }

  inventory(): InventoryItem[] {
    return [];
  }
}

function tryGet<T>(get: () => T): T | undefined {
  try {
    return get();
  } catch {
    return undefined;
  }
}

const CONSTRUCT_MEMBERS = ['Roles', 'Users', 'Groups'] as const;

function constructModel(c: PolicyConstruct): Model {
  return {
    Id: c.id,
    PolicyName: c.policyName,
    PolicyDocument: documentObject(c.document),
    Roles: c.roles.length ? c.roles : undefined,
    Users: c.users.length ? c.users : undefined,
    Groups: c.groups.length ? c.groups : undefined,
  };
}

/** `AWS::IAM::Policy`: the policy put on every principal it names. */
export class PolicyConstructProvider implements ResourceProvider {
  readonly typeName = 'AWS::IAM::Policy';
  constructor(private readonly store: IamStore) {}

  /** Puts the document on every named principal (all checked first, so a failure changes nothing). */
  private putAll(iam: AccountIam, policyName: string, document: string, desired: Model): void {
    const targets = PRINCIPAL_KINDS.flatMap((kind, i) =>
      ((desired[CONSTRUCT_MEMBERS[i]!] as string[] | undefined) ?? []).map((n) => ({
        kind,
        principal: kind.get(iam, n),
      })),
    );
    for (const { kind, principal } of targets) putInlinePolicy(kind, principal, policyName, document);
  }

  private removeAll(iam: AccountIam, c: PolicyConstruct): void {
    const lists = [c.roles, c.users, c.groups];
    PRINCIPAL_KINDS.forEach((kind, i) => {
      for (const name of lists[i]!) {
        const principal = tryGet(() => kind.get(iam, name));
        if (principal) delete principal.inlinePolicies[nameKey(c.policyName)];
      }
    });
  }

  private record(id: string, desired: Model): PolicyConstruct {
    const list = (v: unknown) => [...((v as string[] | undefined) ?? [])];
    return {
      id,
      policyName: String(desired.PolicyName),
      document: documentText(desired.PolicyDocument),
      roles: list(desired.Roles),
      users: list(desired.Users),
      groups: list(desired.Groups),
    };
  }

  create(scope: ResourceScope, _schema: ResourceSchema, desired: Model): StoredResource {
    const iam = this.store.account(scope.account);
    const construct = this.record(`Policy-${upperAlnum(12)}`, desired);
    handler(() => this.putAll(iam, construct.policyName, construct.document, desired));
    iam.policyConstructs[construct.id] = construct;
    return stored(construct.id, constructModel(construct));
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const construct = this.store.account(scope.account).policyConstructs[identifier];
    return construct ? stored(construct.id, constructModel(construct)) : undefined;
  }

  update(scope: ResourceScope, schema: ResourceSchema, identifier: string, desired: Model): StoredResource {
    const iam = this.store.account(scope.account);
    const current = iam.policyConstructs[identifier];
    if (!current) throw notFound(schema.typeName, identifier);
    const next = this.record(identifier, desired);
    handler(() => {
      this.removeAll(iam, current);
      this.putAll(iam, next.policyName, next.document, desired);
    });
    iam.policyConstructs[identifier] = next;
    return stored(next.id, constructModel(next));
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const iam = this.store.account(scope.account);
    const construct = iam.policyConstructs[identifier];
    if (!construct) throw notFound(schema.typeName, identifier);
    this.removeAll(iam, construct);
    delete iam.policyConstructs[identifier];
  }

  list(scope: ResourceScope): StoredResource[] {
    return Object.values(this.store.account(scope.account).policyConstructs).map((c) =>
      stored(c.id, constructModel(c)),
    );
  }

  inventory(): InventoryItem[] {
    return this.store
      .entries()
      .flatMap(([account, iam]) =>
        Object.values(iam.policyConstructs).map((c) => item(account, this.typeName, c.id, constructModel(c))),
      );
  }
}
