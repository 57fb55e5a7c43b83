/**
 * The plan of a stack deploy: what happens to each resource and output. Pure
 * data, printed by `cdkd diff` and followed by the deploy engine.
 */
import type { PolicyAttribute, StackState } from '../state/types';
import type { RemovalDecision } from './removal-policy';

export type ResourceAction = 'CREATE' | 'UPDATE' | 'REPLACE' | 'DELETE' | 'NO_CHANGE';

/** One difference between the state record and the desired resource. */
export interface PropertyChange {
  /** `Properties.Tags[0].Value`; `Type`, `DeletionPolicy` and `UpdateReplacePolicy` for those attributes. */
  path: string;
  /** The recorded value; `undefined` when the property is being added. */
  before: unknown;
  /** The desired value; `undefined` when the property is being removed; an `Unknown` when known only after deploy. */
  after: unknown;
  /** The new value is known only after deploy (it is, or contains, an `Unknown`). */
  unknown?: boolean;
  /** Changing it replaces the resource (a create-only property, or the type). */
  causesReplacement?: boolean;
  /** It may replace the resource: a conditionally create-only property, or a create-only one whose new value is unknown. */
  mayCauseReplacement?: boolean;
}

/** What {@link classifyResourceChange} decides for one resource. */
export interface ResourceChange {
  action: ResourceAction;
  propertyChanges: PropertyChange[];
  /** Why the resource is replaced, e.g. `create-only property QueueName changed`. */
  replacementReason?: string;
  /** REPLACE only because a create-only property's new value is unknown before deploy ("may be replaced"). */
  mayReplace?: boolean;
  /** UPDATE of `DeletionPolicy` / `UpdateReplacePolicy` only: the state record is updated, no provider call. */
  policyOnly?: boolean;
  /** UPDATE although nothing changed: `--force` re-applies the resource. */
  forced?: boolean;
}

/** The resolved desired state of a resource. */
export interface DesiredResourceState {
  properties: Record<string, unknown>;
  deletionPolicy?: PolicyAttribute;
  updateReplacePolicy?: PolicyAttribute;
}

export interface ResourcePlan extends ResourceChange {
  logicalId: string;
  /** The template's type (the recorded one for DELETE). */
  resourceType: string;
  /** The recorded type when it differs (a type change is a replacement). */
  previousResourceType?: string;
  /** Resolved desired state (all but DELETE); may hold `Unknown`s. */
  desired?: DesiredResourceState;
  /** DELETE: the recorded DeletionPolicy. */
  deletionPolicy?: PolicyAttribute;
  /** DELETE with `Retain` / `RetainExceptOnCreate`: removed from state, kept in AWS. */
  retain?: boolean;
  /**
   * DELETE, and REPLACE (for the original): what the removal rule does with the
   * resource leaving the stack (`src/plan/removal-policy.ts`); absent for a plain delete.
   */
  removal?: Exclude<RemovalDecision['action'], 'delete'>;
  /**
   * A nested stack (`AWS::CloudFormation::Stack`) the deploy creates or updates:
   * its child stack's own plan, made with the parent's before anything changes,
   * so preflight, `--require-approval` and diff see inside it. Absent when the
   * child's template is known only after deploy (an unknown TemplateURL).
   */
  nested?: NestedStackPlan;
}

/** The plan of a nested stack's child stack, against the child's own state record. */
export interface NestedStackPlan {
  plan: StackPlan;
  /** The child's state record (write-ahead log replayed); undefined for a child never deployed. */
  state: StackState | undefined;
}

export type OutputAction = 'ADD' | 'UPDATE' | 'REMOVE' | 'NO_CHANGE';

export interface OutputChange {
  name: string;
  action: OutputAction;
  before?: unknown;
  after?: unknown;
  /** The new value is known only after deploy. */
  unknown?: boolean;
  exportName?: unknown;
}

export interface StackPlan {
  stackName: string;
  /** Creates, updates and unchanged resources in deploy order, then deletions in deletion order. */
  resources: ResourcePlan[];
  outputs: OutputChange[];
  /** True when any resource or output changes. */
  hasChanges: boolean;
}
