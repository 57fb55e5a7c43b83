/**
 * AWS::IAM::ManagedPolicy through IAM. The physical id is the policy ARN.
 *
 * Create: a generated name (128 characters) from the create's token, the
 * ownership tags; `EntityAlreadyExists` adopts only this very create's
 * policy. Then the attachments (`Roles`, `Users`, `Groups`). Update: a new
 * document is a new default version; IAM keeps at most five versions, so the
 * oldest non-default one is deleted first when five exist (as CloudFormation
 * does); attachments follow the template, a principal removed from it is
 * detached. Delete: IAM deletes a policy only when it is attached to nothing
 * and has no version but the default, so those go first.
 */
import {
  CreatePolicyCommand,
  CreatePolicyVersionCommand,
  DeletePolicyCommand,
  DeletePolicyVersionCommand,
  GetPolicyCommand,
  GetPolicyVersionCommand,
  ListEntitiesForPolicyCommand,
  ListPolicyVersionsCommand,
  type Policy,
} from '@aws-sdk/client-iam';
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
import { retireOnFailure } from './cleanup';
import { decodeDocument, documentText, sameDocument } from './documents';
import { isEntityAlreadyExists, isNoSuchEntity } from './errors';
import { IamSupport, optionalString, stringList, tagsWithOwnership, type ResourceRef } from './iam-support';
import { MAX_MANAGED_POLICY_NAME, entityName } from './names';
import { GROUP_OPS, ROLE_OPS, USER_OPS, type PrincipalOps } from './principal-policies';

const MAX_VERSIONS = 5;

/** The attachment properties and the principal kind each names. */
const ATTACHMENTS: ReadonlyArray<[property: string, ops: PrincipalOps]> = [
  ['Roles', ROLE_OPS],
  ['Users', USER_OPS],
  ['Groups', GROUP_OPS],
];

/** The `Fn::GetAtt` attributes of a managed policy. */
function attributesOf(policy: Policy): Record<string, unknown> {
  return {
    PolicyArn: policy.Arn,
    PolicyId: policy.PolicyId,
    DefaultVersionId: policy.DefaultVersionId,
    AttachmentCount: policy.AttachmentCount,
    PermissionsBoundaryUsageCount: policy.PermissionsBoundaryUsageCount,
    IsAttachable: policy.IsAttachable,
    CreateDate: policy.CreateDate?.toISOString(),
    UpdateDate: policy.UpdateDate?.toISOString(),
  };
}

export class IamManagedPolicyProvider implements ResourceProvider {
  private readonly sup: IamSupport;

  constructor(ctx: ProviderContext) {
    this.sup = new IamSupport(ctx);
  }

  async create(
    logicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const { sup } = this;
    const signal = context.signal;
    const name = entityName(properties.ManagedPolicyName, logicalId, context, MAX_MANAGED_POLICY_NAME);
    const path = optionalString(properties.Path);
    const ref: ResourceRef = { logicalId, resourceType };
    let arn: string;
    let adopted = false;
    try {
      const out = await sup.send(signal, (c, o) =>
        c.send(
          new CreatePolicyCommand({
            PolicyName: name,
            Path: path,
            Description: optionalString(properties.Description),
            PolicyDocument: documentText(properties.PolicyDocument),
            Tags: tagsWithOwnership(undefined, context.ownership),
          }),
          o,
        ),
      );
      arn = out.Policy!.Arn!;
    } catch (err) {
      if (!isEntityAlreadyExists(err)) throw sup.wrap(err, `creating managed policy ${name}`, ref);
      arn = await sup.arn('policy', path, name);
      const existing = await this.getPolicy(arn, signal, ref).catch((readError: unknown) => {
        // Same name under another path: not this create's policy either.
        if (isNoSuchEntity((readError as { cause?: unknown }).cause)) return undefined;
        throw readError;
      });
      sup.checkOwnership(
        context.ownership,
        existing?.Tags,
        `A managed policy named ${name}`,
        ref,
        `Give ${logicalId} another ManagedPolicyName, delete the existing policy, or import it into this stack.`,
        err,
      );
      adopted = true;
    }
    return retireOnFailure(
      sup,
      { ...ref, physicalId: arn },
      `managed policy ${arn}`,
      `aws iam delete-policy --policy-arn ${arn} (after detaching it)`,
      async () => {
        if (adopted) await this.setDocument(arn, properties.PolicyDocument, signal);
        await this.applyAttachments(arn, properties, {}, signal);
        return { physicalId: arn, attributes: attributesOf(await this.getPolicy(arn, signal, ref)) };
      },
      () => this.deletePolicy(arn, signal),
    ).catch((err: unknown) => {
      throw sup.wrap(err, `configuring managed policy ${arn}`, { ...ref, physicalId: arn });
    });
  }

  /** Attaches to the principals the template added, then detaches from the ones it removed. */
  private async applyAttachments(
    arn: string,
    next: Record<string, unknown>,
    previous: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<void> {
    for (const [property, ops] of ATTACHMENTS) {
      const now = stringList(next[property]);
      const before = stringList(previous[property]);
      for (const principal of now)
        if (!before.includes(principal)) await ops.attach(this.sup, signal, principal, arn);
      for (const principal of before)
        if (!now.includes(principal)) await ops.detach(this.sup, signal, principal, arn);
    }
  }

  /** Makes `document` the default version, unless it already is. */
  private async setDocument(arn: string, document: unknown, signal?: AbortSignal): Promise<void> {
    const { sup } = this;
    const versions =
      (await sup.send(signal, (c, o) => c.send(new ListPolicyVersionsCommand({ PolicyArn: arn }), o)))
        .Versions ?? [];
    const current = versions.find((v) => v.IsDefaultVersion);
    if (current) {
      const version = await sup.send(signal, (c, o) =>
        c.send(new GetPolicyVersionCommand({ PolicyArn: arn, VersionId: current.VersionId! }), o),
      );
      if (sameDocument(decodeDocument(version.PolicyVersion?.Document), document)) return;
    }
    if (versions.length >= MAX_VERSIONS) {
      const oldest = versions
        .filter((v) => !v.IsDefaultVersion)
        .sort((a, b) => (a.CreateDate?.getTime() ?? 0) - (b.CreateDate?.getTime() ?? 0))[0];
      if (oldest)
        await sup.send(signal, (c, o) =>
          c.send(new DeletePolicyVersionCommand({ PolicyArn: arn, VersionId: oldest.VersionId! }), o),
        );
    }
    await sup.send(signal, (c, o) =>
      c.send(
        new CreatePolicyVersionCommand({
          PolicyArn: arn,
          PolicyDocument: documentText(document),
          SetAsDefault: true,
        }),
        o,
      ),
    );
  }

  async update(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    previous: Record<string, unknown>,
    context?: UpdateContext,
  ): Promise<ResourceUpdateResult> {
    const { sup } = this;
    const signal = context?.signal;
    const ref: ResourceRef = { logicalId, resourceType, physicalId };
    await sup.assertRegion(context?.expectedRegion, ref, 'pre-update');
    try {
      if (!sameDocument(properties.PolicyDocument, previous.PolicyDocument))
        await this.setDocument(physicalId, properties.PolicyDocument, signal);
      await this.applyAttachments(physicalId, properties, previous, signal);
      return {
        physicalId,
        wasReplaced: false,
        attributes: attributesOf(await this.getPolicy(physicalId, signal, ref)),
      };
    } catch (err) {
      throw sup.wrap(err, `updating managed policy ${physicalId}`, ref);
    }
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    _properties?: Record<string, unknown>,
    context?: DeleteContext,
  ): Promise<void> {
    const ref: ResourceRef = { logicalId, resourceType, physicalId };
    await this.sup.deleteOrGone('managed policy', ref, context?.expectedRegion, () =>
      this.deletePolicy(physicalId, context?.signal),
    );
  }

  /** Detached from every principal (IAM refuses otherwise), its other versions deleted, then the policy. */
  private async deletePolicy(PolicyArn: string, signal?: AbortSignal): Promise<void> {
    const { sup } = this;
    let marker: string | undefined;
    do {
      const out = await sup.send(signal, (c, o) =>
        c.send(new ListEntitiesForPolicyCommand({ PolicyArn, Marker: marker }), o),
      );
      for (const r of out.PolicyRoles ?? []) await ROLE_OPS.detach(sup, signal, r.RoleName!, PolicyArn);
      for (const u of out.PolicyUsers ?? []) await USER_OPS.detach(sup, signal, u.UserName!, PolicyArn);
      for (const g of out.PolicyGroups ?? []) await GROUP_OPS.detach(sup, signal, g.GroupName!, PolicyArn);
      marker = out.IsTruncated ? out.Marker : undefined;
    } while (marker);
    const versions =
      (await sup.send(signal, (c, o) => c.send(new ListPolicyVersionsCommand({ PolicyArn }), o))).Versions ??
      [];
    for (const v of versions)
      if (!v.IsDefaultVersion)
        await sup.send(signal, (c, o) =>
          c.send(new DeletePolicyVersionCommand({ PolicyArn, VersionId: v.VersionId! }), o),
        );
    await sup.send(signal, (c, o) => c.send(new DeletePolicyCommand({ PolicyArn }), o));
  }

  private async getPolicy(
    PolicyArn: string,
    signal: AbortSignal | undefined,
    ref: ResourceRef,
  ): Promise<Policy> {
    try {
      return (await this.sup.send(signal, (c, o) => c.send(new GetPolicyCommand({ PolicyArn }), o))).Policy!;
    } catch (err) {
      throw this.sup.wrap(err, `reading managed policy ${PolicyArn}`, ref);
    }
  }

  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    try {
      const policy = (
        await this.sup.send(undefined, (c, o) => c.send(new GetPolicyCommand({ PolicyArn: physicalId }), o))
      ).Policy!;
      return attributesOf(policy)[attributeName];
    } catch (err) {
      if (isNoSuchEntity(err)) return undefined;
      throw err;
    }
  }

  async readCurrentState(physicalId: string): Promise<Record<string, unknown> | undefined> {
    const { sup } = this;
    let policy: Policy;
    try {
      policy = (
        await sup.send(undefined, (c, o) => c.send(new GetPolicyCommand({ PolicyArn: physicalId }), o))
      ).Policy!;
    } catch (err) {
      if (isNoSuchEntity(err)) return undefined;
      throw err;
    }
    const version = await sup.send(undefined, (c, o) =>
      c.send(new GetPolicyVersionCommand({ PolicyArn: physicalId, VersionId: policy.DefaultVersionId! }), o),
    );
    const entities = await sup.send(undefined, (c, o) =>
      c.send(new ListEntitiesForPolicyCommand({ PolicyArn: physicalId }), o),
    );
    return {
      ManagedPolicyName: policy.PolicyName,
      Path: policy.Path,
      Description: policy.Description ?? '',
      PolicyDocument: decodeDocument(version.PolicyVersion?.Document),
      Roles: (entities.PolicyRoles ?? []).map((r) => r.RoleName!),
      Users: (entities.PolicyUsers ?? []).map((u) => u.UserName!),
      Groups: (entities.PolicyGroups ?? []).map((g) => g.GroupName!),
    };
  }

  async import(input: ResourceImportInput): Promise<ResourceImportResult | null> {
    const known =
      input.knownPhysicalId ??
      (optionalString(input.properties.ManagedPolicyName)
        ? await this.sup.arn(
            'policy',
            optionalString(input.properties.Path),
            String(input.properties.ManagedPolicyName),
          )
        : undefined);
    if (!known) return null;
    try {
      const policy = (
        await this.sup.send(undefined, (c, o) => c.send(new GetPolicyCommand({ PolicyArn: known }), o))
      ).Policy!;
      return { physicalId: policy.Arn!, attributes: attributesOf(policy) };
    } catch (err) {
      if (isNoSuchEntity(err)) return null;
      throw this.sup.wrap(err, `looking up managed policy ${known}`, {
        logicalId: input.logicalId,
        resourceType: input.resourceType,
      });
    }
  }
}
