/**
 * CDK annotations (`Annotations.of(construct).addError/addWarning/addInfo`)
 * as the synthesized stacks carry them. Errors fail the command, naming each
 * construct path; warnings and infos are shown.
 */
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
export function reportAnnotations(stacks: ReadonlyArray<{ displayPath: string; annotations: readonly StackAnnotation[] }>, host: IoHost): void {
  const errors: string[] = [];
  for (const stack of stacks) {
    for (const a of stack.annotations) {
      const data: AnnotationMessageData = { ...a, stack: stack.displayPath };
      host.notify({ level: LOG_LEVEL[a.level], code: ANNOTATION_CODE, message: `[${a.path}] ${a.message}`, data, time: new Date() });
      if (a.level === 'error') errors.push(`  [${a.path}] ${a.message}`);
    }
  }
  if (errors.length > 0) {
    throw new SynthesisError(`The app's constructs reported ${errors.length === 1 ? 'an error' : `${errors.length} errors`}:\n${errors.join('\n')}`, {
      remedy: 'Fix the constructs named above in the CDK app and run the command again.',
    });
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
