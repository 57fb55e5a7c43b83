/**
 * The resource dependency graphs: for deploy, built from a template (edges from
 * `Ref`, `Fn::GetAtt`, `Fn::Sub` references and `DependsOn`, after conditions are
 * evaluated); for destroy, built from the `dependencies` recorded in state.
 */
import type { ResourceState } from '../state/types';
import {
  getAttArguments,
  intrinsicName,
  isPseudoParameter,
  ownValue,
  parseSubString,
  subArguments,
  subVariableTarget,
} from '../template/intrinsics';
import type { CfnResource, CfnTemplate } from '../template/types';
import { ValidationError } from '../util/errors';
import { Dag } from './dag';

/** Evaluates conditions; the `TemplateResolver` satisfies it. */
export interface ConditionEvaluator {
  evaluateCondition(name: string): Promise<boolean>;
  /** The resource's Condition holds and everything it DependsOn is created too. */
  isResourceIncluded(logicalId: string): Promise<boolean>;
}

/** One reference from a template value to a name. */
export interface TemplateReference {
  /** The referenced name: a resource, a parameter or a pseudo parameter. */
  target: string;
  via: 'Ref' | 'Fn::GetAtt' | 'Fn::Sub' | 'DependsOn';
  /** Where it was found, e.g. `Properties.Environment.Variables.TABLE`. */
  path: string;
}

/**
 * Every `Ref`, `Fn::GetAtt` and `Fn::Sub` reference in `value`. An `Fn::If`
 * contributes only the branch its condition chooses; `Fn::Sub` variables bound
 * by its own variable map are not references.
 */
export async function collectReferences(
  value: unknown,
  conditions: ConditionEvaluator,
  path: string,
): Promise<TemplateReference[]> {
  const found: TemplateReference[] = [];
  // Inside an intrinsic's arguments the path stays at the property (as in the resolver's errors).
  const walk = async (node: unknown, at: string, frozen = false): Promise<void> => {
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) await walk(node[i], frozen ? at : `${at}[${i}]`, frozen);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const fn = intrinsicName(node);
    const obj = node as Record<string, unknown>;
    if (fn === undefined) {
      for (const [k, v] of Object.entries(obj)) await walk(v, frozen ? at : `${at}.${k}`, frozen);
      return;
    }
    const arg = obj[fn];
    switch (fn) {
      case 'Ref':
        if (typeof arg === 'string') found.push({ target: arg, via: 'Ref', path: at });
        return;
      case 'Fn::GetAtt': {
        const args = getAttArguments(arg);
        if (args) {
          found.push({ target: args.logicalId, via: 'Fn::GetAtt', path: at });
          await walk(args.attribute, at, true);
        }
        return;
      }
      case 'Fn::Sub': {
        const args = subArguments(arg);
        if (!args) return;
        for (const part of parseSubString(args.text) ?? []) {
          if ('variable' in part && !Object.prototype.hasOwnProperty.call(args.variables, part.variable)) {
            found.push({ target: subVariableTarget(part.variable).logicalId, via: 'Fn::Sub', path: at });
          }
        }
        for (const v of Object.values(args.variables)) await walk(v, at, true);
        return;
      }
      case 'Fn::If':
        if (Array.isArray(arg) && arg.length === 3 && typeof arg[0] === 'string') {
          await walk((await conditions.evaluateCondition(arg[0])) ? arg[1] : arg[2], at, frozen);
        }
        return;
      default:
        await walk(arg, at, true);
    }
  };
  await walk(value, path);
  return found;
}

/**
 * The deploy graph of a template: one node per resource that is created (its
 * condition holds), edges from references and `DependsOn`. References to
 * parameters and pseudo parameters are not edges; a reference to a name that
 * is neither, or to a resource that is not created, is an error naming both
 * ends. Cycles are left for `dag.assertAcyclic()` / the executor to report.
 */
export async function buildResourceGraph(
  template: CfnTemplate,
  conditions: ConditionEvaluator,
): Promise<Dag<CfnResource>> {
  const dag = new Dag<CfnResource>();
  const ids = Object.keys(template.Resources);
  const included = new Set<string>();
  for (const id of ids) {
    if (await conditions.isResourceIncluded(id)) included.add(id);
  }
  for (const id of ids) if (included.has(id)) dag.addNode(id, template.Resources[id]);

  for (const id of dag.ids()) {
    const resource = template.Resources[id];
    const references = [
      ...(resource.DependsOn ?? []).map((target): TemplateReference => ({
        target,
        via: 'DependsOn',
        path: 'DependsOn',
      })),
      ...(await collectReferences(resource.Properties ?? {}, conditions, 'Properties')),
    ];
    for (const ref of references) {
      if (
        ref.via !== 'Fn::GetAtt' &&
        ref.via !== 'DependsOn' &&
        (isPseudoParameter(ref.target) || ownValue(template.Parameters, ref.target))
      )
        continue;
      if (!ownValue(template.Resources, ref.target)) {
        throw new ValidationError(
          `Resource ${id} refers to ${ref.target} (${ref.via} at ${ref.path}), which is not a resource` +
            (ref.via === 'Ref' || ref.via === 'Fn::Sub' ? ', a parameter or a pseudo parameter' : '') +
            ' of the template.',
          {
            code: 'INVALID_TEMPLATE',
            remedy: `Define ${ref.target} in the template or remove the reference.`,
          },
        );
      }
      if (!included.has(ref.target)) {
        // A DependsOn on a resource that is not created excludes the dependent too, so only references get here.
        const condition = ownValue(template.Resources, ref.target)?.Condition;
        throw new ValidationError(
          `Resource ${id} refers to ${ref.target} (${ref.via} at ${ref.path}), which is not created in this deploy` +
            (condition ? ` (its condition ${condition} is false).` : '.'),
          {
            code: 'INVALID_TEMPLATE',
            remedy:
              'Guard the reference with Fn::If on the same condition, or give the referencing resource the same Condition.',
          },
        );
      }
      dag.addDependency(id, ref.target);
    }
  }
  return dag;
}

/**
 * The destroy graph from state records: a resource is deleted only after every
 * resource that depends on it (the reverse of creation). Recorded dependencies
 * on resources no longer in state are ignored.
 */
export function buildDeletionGraph(resources: Record<string, ResourceState>): Dag<ResourceState> {
  const dag = new Dag<ResourceState>();
  for (const [id, record] of Object.entries(resources)) dag.addNode(id, record);
  for (const [id, record] of Object.entries(resources)) {
    for (const dep of record.dependencies ?? []) {
      if (dep !== id && dag.has(dep)) dag.addDependency(dep, id);
    }
  }
  return dag;
}
