/**
 * CDK annotations (`Annotations.of(construct).addError/addWarning/addInfo`)
 * as the synthesized stacks carry them, and the violations of the app's
 * validation report (`validation-report.json`: CloudFormation validation and
 * policy plugins). Errors fail the command, naming each construct path;
 * warnings and infos are shown.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { PolicyValidationReportJson } from '@aws-cdk/cloud-assembly-schema';
import { SynthesisError } from '../util/errors';
import type { IoHost, LogLevel } from '../util/io-host';

export type AnnotationLevel = 'error' | 'warning' | 'info';

/** One annotation of a synthesized stack. */
export interface StackAnnotation {
  level: AnnotationLevel;
  /** Construct path, e.g. `MyStack/MyQueue/Resource`. */
  path: string;
  message: string;
}

export const ANNOTATION_CODE = 'CDKD_SYNTH_ANNOTATION';

/** Payload of an annotation message. */
export interface AnnotationMessageData extends StackAnnotation {
  /** Display path of the stack the annotation belongs to. */
  stack: string;
}

const LOG_LEVEL: Record<AnnotationLevel, LogLevel> = { error: 'error', warning: 'warn', info: 'info' };

/**
 * Reports the annotations of the given stacks to the IoHost, then throws a
 * {@link SynthesisError} listing every error annotation, if there is one.
 */
export function reportAnnotations(
  stacks: ReadonlyArray<{ displayPath: string; annotations: readonly StackAnnotation[] }>,
  host: IoHost,
): void {
  const errors: string[] = [];
  for (const stack of stacks) {
    for (const a of stack.annotations) {
      const data: AnnotationMessageData = { ...a, stack: stack.displayPath };
      host.notify({
        level: LOG_LEVEL[a.level],
        code: ANNOTATION_CODE,
        message: `[${a.path}] ${a.message}`,
        data,
        time: new Date(),
      });
      if (a.level === 'error') errors.push(`  [${a.path}] ${a.message}`);
    }
  }
  if (errors.length > 0) {
    throw new SynthesisError(
      `The app's constructs reported ${errors.length === 1 ? 'an error' : `${errors.length} errors`}:\n${errors.join('\n')}`,
      {
        remedy: 'Fix the constructs named above in the CDK app and run the command again.',
      },
    );
  }
}

/** Reads a stack artifact's synthesis messages as annotations. */
export function toAnnotations(
  messages: ReadonlyArray<{ level: string; id: string; entry: { data?: unknown } }>,
): StackAnnotation[] {
  return messages.map((m) => ({
    level: m.level === 'error' ? 'error' : m.level === 'warning' ? 'warning' : 'info',
    path: m.id.replace(/^\//, ''),
    message: typeof m.entry.data === 'string' ? m.entry.data : JSON.stringify(m.entry.data),
  }));
}

/** The validation report aws-cdk-lib writes next to the manifest. */
export const VALIDATION_REPORT_FILE = 'validation-report.json';

/** aws-cdk-lib can copy construct annotations into the report; cdkd reads those from the stacks instead. */
const ANNOTATIONS_PLUGIN = 'Construct Annotations';

/**
 * The violations of the assembly's validation report, one annotation per
 * violating construct (a violation naming no construct has an empty path).
 */
export function readValidationReport(assemblyDirectory: string): StackAnnotation[] {
  const file = path.join(assemblyDirectory, VALIDATION_REPORT_FILE);
  if (!fs.existsSync(file)) return [];
  let report: PolicyValidationReportJson;
  try {
    report = JSON.parse(fs.readFileSync(file, 'utf8')) as PolicyValidationReportJson;
  } catch (err) {
    throw new SynthesisError(`Cannot read the validation report ${file}: ${(err as Error).message}`, {
      remedy: 'Synthesize the app again.',
    });
  }
  const out: StackAnnotation[] = [];
  for (const plugin of report.pluginReports ?? []) {
    if (plugin.pluginName === ANNOTATIONS_PLUGIN) continue;
    for (const v of plugin.violations ?? []) {
      const level: AnnotationLevel =
        v.severity === 'fatal' || v.severity === 'error'
          ? 'error'
          : v.severity === 'warning'
            ? 'warning'
            : 'info';
      const message = `${v.description} (${plugin.pluginName} ${v.ruleName})${v.suggestedFix ? ` Fix: ${v.suggestedFix}` : ''}`;
      const paths =
        v.violatingConstructs.length > 0 ? v.violatingConstructs.map((c) => c.constructPath) : [''];
      for (const p of paths) out.push({ level, path: p, message });
    }
  }
  return out;
}
