/**
 * Template-level refusals before anything is locked or changed. A template
 * that leaves the stack with no resources (an empty `Resources`, or every
 * resource's condition false) is refused as CloudFormation refuses it, instead
 * of deleting the whole stack; deleting it is `cdkd destroy`'s job.
 */
import type { StackPlan } from '../plan/types';
import { ValidationError } from '../util/errors';

export function assertLeavesResources(plan: StackPlan): void {
  if (plan.resources.some((r) => r.action !== 'DELETE')) return;
  const recorded = plan.resources.length;
  throw new ValidationError(
    `${plan.stackName} cannot be deployed: its template has no resources${
      recorded > 0 ? `, so deploying it would delete all ${recorded} resource(s) of the stack` : ''
    }. CloudFormation refuses such a template. Nothing was changed.`,
    {
      code: 'TEMPLATE_NO_RESOURCES',
      remedy: `To delete the stack and its resources, run \`cdkd destroy ${plan.stackName}\`; otherwise add at least one resource to the stack in the app.`,
    },
  );
}
