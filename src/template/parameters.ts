/**
 * Template parameters: the `--parameters` command-line syntax, which values
 * apply to which stack, validation against the declaration (type, AllowedValues,
 * AllowedPattern, lengths, bounds), and lazy resolution: an SSM-typed parameter
 * is read from SSM only when something actually references it.
 */
import { TemplateResolutionError, ValidationError } from '../util/errors';
import { registerSecret } from './redaction';
import type { SsmParameterReader } from './environment';
import type { CfnParameter, CfnTemplate } from './types';
import { Unknown } from './unknown';

/** One `--parameters` value: `Stack:Name=value`, or `Name=value` for every selected stack. */
export interface ParameterAssignment {
  /** Absent for `Name=value`, which applies to every selected stack declaring `Name`. */
  stackName?: string;
  name: string;
  value: string;
}

/** Parses `--parameters` values (`Stack:Name=value` or `Name=value`; the value may contain `=` and `:`). */
export function parseParameterArgs(args: readonly string[]): ParameterAssignment[] {
  return args.map((arg) => {
    const eq = arg.indexOf('=');
    const key = eq < 0 ? arg : arg.slice(0, eq);
    const colon = key.indexOf(':');
    const stackName = colon < 0 ? undefined : key.slice(0, colon);
    const name = colon < 0 ? key : key.slice(colon + 1);
    if (eq < 0 || name === '' || stackName === '') {
      throw new ValidationError(`Invalid --parameters value ${JSON.stringify(arg)}.`, {
        remedy: 'Write --parameters Name=value, or --parameters Stack:Name=value for one stack.',
      });
    }
    return { ...(stackName === undefined ? {} : { stackName }), name, value: arg.slice(eq + 1) };
  });
}

/**
 * Checks the assignments against the selected stacks: a stack-qualified value must
 * name a selected stack and one of its parameters; an unqualified value must name
 * a parameter of at least one selected stack.
 */
export function validateParameterAssignments(
  assignments: readonly ParameterAssignment[],
  stacks: ReadonlyArray<{ stackName: string; template: Pick<CfnTemplate, 'Parameters'> }>,
): void {
  const byName = new Map(stacks.map((s) => [s.stackName, s.template]));
  for (const a of assignments) {
    if (a.stackName !== undefined) {
      const template = byName.get(a.stackName);
      if (!template) {
        throw new ValidationError(
          `--parameters ${a.stackName}:${a.name} names stack ${a.stackName}, which is not being deployed.`,
          {
            remedy: `Selected stacks: ${[...byName.keys()].join(', ') || '(none)'}.`,
          },
        );
      }
      if (!Object.prototype.hasOwnProperty.call(template.Parameters, a.name)) {
        throw new ValidationError(`Stack ${a.stackName} has no parameter ${a.name}.`, {
          remedy: declaredRemedy(template.Parameters),
        });
      }
    } else if (!stacks.some((s) => Object.prototype.hasOwnProperty.call(s.template.Parameters, a.name))) {
      throw new ValidationError(`No selected stack has a parameter ${a.name}.`, {
        remedy: stacks
          .map((s) => `${s.stackName}: ${Object.keys(s.template.Parameters).join(', ') || '(no parameters)'}`)
          .join('; '),
      });
    }
  }
}

function declaredRemedy(parameters: Record<string, unknown>): string {
  const names = Object.keys(parameters);
  return names.length > 0 ? `Its parameters are: ${names.join(', ')}.` : 'It declares no parameters.';
}

/**
 * The values for one stack: unqualified assignments for parameters it declares,
 * then its own `Stack:Name=value` ones (which win). Later assignments win over earlier.
 */
export function parameterValuesForStack(
  assignments: readonly ParameterAssignment[],
  stackName: string,
  template: Pick<CfnTemplate, 'Parameters'>,
): Record<string, string> {
  const values: Record<string, string> = {};
  for (const a of assignments) {
    if (a.stackName === undefined && Object.prototype.hasOwnProperty.call(template.Parameters, a.name))
      values[a.name] = a.value;
  }
  for (const a of assignments) {
    if (a.stackName === stackName) values[a.name] = a.value;
  }
  return values;
}

/** A resolved parameter: what `Ref` returns (a string, or a list for list types). */
export type ParameterValue = string | string[];

const SSM_VALUE_TYPE = /^AWS::SSM::Parameter::Value<(.+)>$/;
const LIST_TYPE = /^List<(.+)>$/;

/** How a declared parameter type behaves. */
interface TypeInfo {
  list: boolean;
  numeric: boolean;
  /** Value read from SSM (the given value is the parameter name). */
  ssm: boolean;
}

/** Classifies a parameter type; undefined when cdkd does not know it. */
export function parameterTypeInfo(type: string): TypeInfo | undefined {
  const ssm = SSM_VALUE_TYPE.exec(type);
  if (ssm) {
    const inner = parameterTypeInfo(ssm[1]);
    if (!inner || inner.ssm || inner.numeric) return undefined;
    return { ...inner, ssm: true };
  }
  if (type === 'String' || type === 'AWS::SSM::Parameter::Name')
    return { list: false, numeric: false, ssm: false };
  if (type === 'Number') return { list: false, numeric: true, ssm: false };
  if (type === 'CommaDelimitedList') return { list: true, numeric: false, ssm: false };
  const list = LIST_TYPE.exec(type);
  if (list) {
    if (list[1] === 'Number') return { list: true, numeric: true, ssm: false };
    if (list[1] === 'String' || /^AWS::[A-Za-z0-9]+(::[A-Za-z0-9]+)+$/.test(list[1]))
      return { list: true, numeric: false, ssm: false };
    return undefined;
  }
  // AWS-specific types (AWS::EC2::VPC::Id, AWS::EC2::KeyPair::KeyName...) are strings;
  // CloudFormation checks that the named thing exists, cdkd does not.
  if (/^AWS::[A-Za-z0-9]+(::[A-Za-z0-9]+)+$/.test(type)) return { list: false, numeric: false, ssm: false };
  return undefined;
}

function splitList(value: string): string[] {
  return value === '' ? [] : value.split(',').map((s) => s.trim());
}

function defaultAsString(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return value.map(String).join(',');
  return String(value);
}

/**
 * The parameters of one stack deploy. Constructing it validates every
 * parameter's given or default value (unknown names, missing values, type and
 * constraints); `value(name)` resolves one on demand, reading SSM for SSM-typed
 * parameters at most once.
 */
export class ParameterSet {
  private readonly declared: Record<string, CfnParameter>;
  private readonly raw = new Map<string, string>();
  private readonly resolved = new Map<string, Promise<ParameterValue>>();
  /** Known only after deploy (plan mode): `Ref` gives an Unknown. */
  private readonly unknown = new Set<string>();

  constructor(
    template: Pick<CfnTemplate, 'Parameters'>,
    values: Record<string, string> = {},
    private readonly ssmParameter?: SsmParameterReader,
    private readonly stackName = 'Stack',
    unknown: readonly string[] = [],
  ) {
    this.declared = template.Parameters;
    for (const name of [...Object.keys(values), ...unknown]) {
      if (!Object.prototype.hasOwnProperty.call(this.declared, name)) {
        throw new ValidationError(
          `Parameter ${name} given for ${this.stackName} is not declared by its template.`,
          {
            remedy: declaredRemedy(this.declared),
          },
        );
      }
    }
    for (const name of unknown) this.unknown.add(name);
    for (const [name, decl] of Object.entries(this.declared)) {
      if (this.unknown.has(name)) continue;
      const info = parameterTypeInfo(decl.Type);
      if (!info)
        throw this.error(
          name,
          `unsupported type ${decl.Type}`,
          'Use a CloudFormation parameter type listed in docs/template-support.md.',
        );
      const value = values[name] ?? defaultAsString(decl.Default);
      if (value === undefined) {
        throw this.error(
          name,
          'no value given and no Default',
          `Pass it: --parameters ${this.stackName}:${name}=<value>.`,
        );
      }
      // Registered before anything can print or store it (a validation error included).
      if (this.isNoEcho(name)) registerSecret(info.list ? [value, ...splitList(value)] : value);
      this.validate(name, decl, info, value);
      this.raw.set(name, value);
    }
  }

  /** True when the template declares `name`. */
  has(name: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.declared, name);
  }

  /** Declared parameter names. */
  names(): string[] {
    return Object.keys(this.declared);
  }

  /** True for a `NoEcho` parameter (its value must not be printed or stored in clear). */
  isNoEcho(name: string): boolean {
    const noEcho = this.has(name) ? this.declared[name].NoEcho : undefined;
    return noEcho === true || noEcho === 'true';
  }

  /** True once `name` has been resolved (tests use it to prove laziness). */
  isResolved(name: string): boolean {
    return this.resolved.has(name);
  }

  /** The value `Ref` returns for `name`; SSM-typed parameters are read from SSM once, on first use. */
  value(name: string): Promise<ParameterValue | Unknown> {
    if (this.unknown.has(name)) return Promise.resolve(new Unknown(`${name}.Ref`));
    let pending = this.resolved.get(name);
    if (!pending) {
      pending = this.resolve(name);
      this.resolved.set(name, pending);
    }
    return pending;
  }

  private async resolve(name: string): Promise<ParameterValue> {
    const decl = this.has(name) ? this.declared[name] : undefined;
    if (!decl)
      throw new TemplateResolutionError(`Parameter ${name} is not declared`, {
        section: 'Parameters',
        logicalId: name,
      });
    const info = parameterTypeInfo(decl.Type)!;
    let value = this.raw.get(name)!;
    if (info.ssm) {
      if (!this.ssmParameter) {
        throw this.error(
          name,
          `type ${decl.Type} needs SSM, but no SSM reader is available`,
          'This is a cdkd bug: the engine must provide ssmParameter.',
        );
      }
      try {
        value = await this.ssmParameter(value);
      } catch (cause) {
        throw this.error(
          name,
          `could not read SSM parameter ${value}: ${cause instanceof Error ? cause.message : String(cause)}`,
          'Check that the SSM parameter exists in this account and region and that you may read it (ssm:GetParameters).',
          cause,
        );
      }
    }
    const out = info.list ? splitList(value) : value;
    if (info.ssm && this.isNoEcho(name)) registerSecret(out);
    return out;
  }

  private validate(name: string, decl: CfnParameter, info: TypeInfo, value: string): void {
    const items = info.list ? splitList(value) : [value];
    const constraint = decl.ConstraintDescription ? ` ${decl.ConstraintDescription}` : '';
    // A NoEcho value never appears in a message.
    const show = (v: string): string => (this.isNoEcho(name) ? '(NoEcho value)' : JSON.stringify(v));
    for (const item of items) {
      if (info.numeric && (item.trim() === '' || Number.isNaN(Number(item)))) {
        throw this.error(name, `must be a number, got ${show(item)}`);
      }
      if (decl.AllowedValues && !decl.AllowedValues.map(String).includes(item)) {
        throw this.error(
          name,
          `value ${show(item)} is not one of the allowed values ${decl.AllowedValues.map(String).join(', ')}.${constraint}`,
        );
      }
      if (decl.AllowedPattern !== undefined && !new RegExp(`^(?:${decl.AllowedPattern})$`).test(item)) {
        throw this.error(
          name,
          `value ${show(item)} does not match the pattern ${decl.AllowedPattern}.${constraint}`,
        );
      }
      if (info.numeric) {
        const n = Number(item);
        if (decl.MinValue !== undefined && n < Number(decl.MinValue))
          throw this.error(name, `value ${show(item)} is below the minimum ${decl.MinValue}.${constraint}`);
        if (decl.MaxValue !== undefined && n > Number(decl.MaxValue))
          throw this.error(name, `value ${show(item)} is above the maximum ${decl.MaxValue}.${constraint}`);
      }
    }
    if (!info.list && !info.numeric) {
      if (decl.MinLength !== undefined && value.length < Number(decl.MinLength)) {
        throw this.error(name, `value is shorter than the minimum length ${decl.MinLength}.${constraint}`);
      }
      if (decl.MaxLength !== undefined && value.length > Number(decl.MaxLength)) {
        throw this.error(name, `value is longer than the maximum length ${decl.MaxLength}.${constraint}`);
      }
    }
  }

  private error(name: string, what: string, remedy?: string, cause?: unknown): ValidationError {
    return new ValidationError(`Parameter ${name} of stack ${this.stackName}: ${what}`, {
      code: 'INVALID_PARAMETER',
      remedy: remedy ?? `Pass a valid value: --parameters ${this.stackName}:${name}=<value>.`,
      cause,
    });
  }
}
