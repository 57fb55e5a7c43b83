/**
 * `--require-approval`, as the CDK CLI applies it: `never` deploys without
 * asking; `broadening` (the default) asks when a stack's deploy adds or widens
 * a permission or network access (IAM statements, managed policies, resource
 * policies, security-group rules); `any-change` asks before every stack with
 * changes. The security changes (or, without any, the whole plan) are shown
 * first; on a terminal the user answers, with `--yes` the answer is yes, and
 * otherwise the stack is refused with the flag that approves it.
 */
import type { RequireApproval } from '../config/config';
import type { DeployAppOptions } from '../engine/deploy-app';
import { securityChangesOf } from '../plan/security-changes';
import { renderSecurityChanges, renderStackPlan } from '../ui/diff-render';
import { CdkdError } from '../util/errors';
import type { Logger } from '../util/io-host';
import { confirmNow, oneAtATime } from './confirm';
import type { Terminal } from './confirm';

export interface ApprovalGateOptions {
  level: RequireApproval;
  terminal: Terminal;
  logger: Logger;
  color: boolean;
  /** Holds other output while a question is on screen. */
  pauseOutput?: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Where the changes are shown (stderr). */
  write?: (text: string) => void;
}

/** The deploy engine's approval hook for a level; undefined for `never`. */
export function approvalGate(options: ApprovalGateOptions): DeployAppOptions['approve'] {
  const { level } = options;
  if (level === 'never') return undefined;
  const write = options.write ?? ((text: string) => process.stderr.write(text));
  return async (stack, plan, state) => {
    const security = securityChangesOf(plan, state);
    if (level === 'broadening' && security.change !== 'broadening') return;
    if (!plan.hasChanges) return;
    const what =
      security.change === 'broadening'
        ? 'adds or widens permissions or network access'
        : security.change === 'non-broadening'
          ? 'changes permissions or network access'
          : 'changes resources';
    const shown =
      security.change !== 'none'
        ? renderSecurityChanges(security, { color: options.color })
        : renderStackPlan(plan, { color: options.color });
    const question = `${stack.stackName}: this deploy ${what}, and --require-approval is '${level}'. Deploy these changes?`;
    const ask = async (): Promise<boolean> => {
      write(`\n${stack.stackName}: changes that need approval:\n${shown}`);
      return confirmNow(question, {
        terminal: options.terminal,
        approveFlag:
          level === 'broadening' ? '--require-approval never' : '--require-approval never (or broadening)',
        code: 'APPROVAL_REQUIRED',
        logger: options.logger,
      });
    };
    const pause = options.pauseOutput ?? (<T>(fn: () => Promise<T>) => fn());
    const approved = await oneAtATime(() => pause(ask));
    if (!approved) {
      throw new CdkdError(`${stack.stackName}: not deployed; the changes were not approved.`, {
        code: 'DEPLOY_DECLINED',
        remedy: 'Review the changes (cdkd diff), then deploy again and approve them.',
      });
    }
  };
}
