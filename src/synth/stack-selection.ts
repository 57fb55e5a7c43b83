/**
 * Stack selection with the CDK CLI's semantics: patterns are globs over the
 * stacks' hierarchical display paths (`Stage/Stack`), where `*` stays within
 * one level and `**` crosses levels; a leading `!` excludes. A pattern without
 * glob characters also matches a stack's CloudFormation name (and CDK's display
 * name, `Path (name)`, as `cdk list` prints it). `--all` selects the app's
 * top-level stacks, as `cdk deploy --all` does. The stacks a selection depends
 * on are added unless `exclusively` is set.
 */
import { StackSelectionError } from '../util/errors';

/** What stack selection needs to know about a stack. */
export interface SelectableStack {
  /** Artifact id in the cloud assembly (unique). */
  readonly artifactId: string;
  /** CloudFormation stack name. */
  readonly stackName: string;
  /** Hierarchical id: the construct path of the stack below the app, e.g. `Stage/Stack`. */
  readonly displayPath: string;
  /** CDK's display name: the display path, followed by ` (stackName)` when they differ. */
  readonly displayName: string;
  /** False for stacks inside a Stage (a nested cloud assembly). */
  readonly topLevel: boolean;
  /** Artifact ids of the stacks this stack depends on. */
  readonly dependencies: readonly string[];
}

export interface StackSelector {
  /** Stack names or glob patterns (`!pattern` excludes). */
  patterns?: readonly string[];
  /** Select every top-level stack (`--all`). */
  all?: boolean;
  /** Do not add the stacks the selection depends on (`--exclusively`). */
  exclusively?: boolean;
  /**
   * What an empty selection (no pattern, no `--all`) means: `single` — the app's
   * only stack, an error when it has several (deploy, synth); `all` — every stack
   * (list). Default `single`.
   */
  whenEmpty?: 'single' | 'all';
}

export interface StackSelection<T extends SelectableStack> {
  /** The selected stacks, in assembly order (dependencies before dependents). */
  stacks: T[];
  /** Stacks added because a selected stack depends on them. */
  addedDependencies: T[];
}

const GLOB_CHARS = /[*?[\]{}]/;

/** Selects stacks from `stacks` (assembly order) as the CDK CLI would. */
export function selectStacks<T extends SelectableStack>(
  stacks: readonly T[],
  selector: StackSelector,
): StackSelection<T> {
  if (stacks.length === 0) {
    throw new StackSelectionError('This app contains no stacks.', {
      remedy: 'Add a Stack to the app, and check that the app calls app.synth().',
    });
  }
  const patterns = (selector.patterns ?? []).filter((p) => p.length > 0);
  let matched: T[];
  if (patterns.length > 0) {
    matched = matchPatterns(stacks, patterns);
  } else if (selector.all) {
    matched = stacks.filter((s) => s.topLevel);
    if (matched.length === 0) {
      throw new StackSelectionError(
        '--all selects the top-level stacks of the app, and this app has none: its stacks are all inside stages.',
        {
          remedy: `Select them with a pattern: ${stagePatterns(stacks)
            .map((p) => `'${p}'`)
            .join(', ')} or '**'.\n${describeStacks(stacks)}`,
        },
      );
    }
  } else if ((selector.whenEmpty ?? 'single') === 'all') {
    matched = [...stacks];
  } else if (stacks.length === 1) {
    matched = [...stacks];
  } else {
    const inStages = stacks.some((s) => !s.topLevel);
    throw new StackSelectionError(
      'This app has more than one stack: name the stacks to use (wildcards are supported), or pass --all.',
      {
        remedy:
          describeStacks(stacks) +
          (inStages
            ? `\nStacks inside a stage are selected by their path, e.g. ${stagePatterns(stacks)
                .map((p) => `'${p}'`)
                .join(', ')}.`
            : ''),
      },
    );
  }

  const selected = new Set(matched.map((s) => s.artifactId));
  const added: T[] = [];
  if (!selector.exclusively) {
    const byId = new Map(stacks.map((s) => [s.artifactId, s]));
    const queue = [...matched];
    while (queue.length > 0) {
      const stack = queue.shift()!;
      for (const dep of stack.dependencies) {
        const depStack = byId.get(dep);
        if (depStack && !selected.has(dep)) {
          selected.add(dep);
          added.push(depStack);
          queue.push(depStack);
        }
      }
    }
  }
  const inOrder = (list: T[]): T[] => stacks.filter((s) => list.includes(s));
  return { stacks: stacks.filter((s) => selected.has(s.artifactId)), addedDependencies: inOrder(added) };
}

function matchPatterns<T extends SelectableStack>(stacks: readonly T[], patterns: readonly string[]): T[] {
  const positives = patterns.filter((p) => !p.startsWith('!'));
  const negatives = patterns.filter((p) => p.startsWith('!')).map((p) => p.slice(1));
  const unmatched = positives.filter((p) => !stacks.some((s) => patternMatches(p, s)));
  if (unmatched.length > 0) {
    const names = unmatched.map((p) => `'${p}'`).join(', ');
    throw new StackSelectionError(`No stack in this app matches ${names}.`, {
      code: 'UNKNOWN_STACK',
      remedy: `${describeStacks(stacks)}\nStacks are selected by name or by path (globs allowed: '*' within one level, '**' across stages).`,
    });
  }
  const included =
    positives.length === 0 ? [...stacks] : stacks.filter((s) => positives.some((p) => patternMatches(p, s)));
  return included.filter((s) => !negatives.some((p) => patternMatches(p, s)));
}

/** True when `pattern` selects `stack`: a glob over its display path, or its exact name. */
export function patternMatches(pattern: string, stack: SelectableStack): boolean {
  if (globToRegExp(pattern).test(stack.displayPath)) return true;
  if (GLOB_CHARS.test(pattern)) return false;
  return pattern === stack.stackName || pattern === stack.displayName;
}

const regexCache = new Map<string, RegExp>();

/**
 * A glob as the CDK CLI reads stack patterns: `**` matches across `/`, `*` and
 * `?` stay within one path level, `[...]` is a character class, `{a,b}` an
 * alternation.
 */
export function globToRegExp(glob: string): RegExp {
  let re = regexCache.get(glob);
  if (re) return re;
  let out = '';
  let inBraces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        // `**/` also matches nothing at all, so `**/Stack` selects a top-level Stack.
        if (glob[i + 2] === '/') {
          out += '(?:.*/)?';
          i += 2;
        } else {
          out += '.*';
          i += 1;
        }
      } else {
        out += '[^/]*';
      }
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) {
        out += '\\[';
      } else {
        let body = glob.slice(i + 1, end);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        out += `[${body.replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else if (c === '{') {
      inBraces++;
      out += '(?:';
    } else if (c === '}' && inBraces > 0) {
      inBraces--;
      out += ')';
    } else if (c === ',' && inBraces > 0) {
      out += '|';
    } else {
      out += c.replace(/[.+^$()|\\/{}]/g, '\\$&');
    }
  }
  re = new RegExp(`^${out}$`);
  regexCache.set(glob, re);
  return re;
}

/** The stack list shown in selection errors. */
function describeStacks(stacks: readonly SelectableStack[]): string {
  return `Stacks in this app: ${stacks.map((s) => s.displayName).join(', ')}`;
}

function stagePatterns(stacks: readonly SelectableStack[]): string[] {
  const stages = stacks
    .filter((s) => !s.topLevel)
    .map((s) => `${s.displayPath.slice(0, s.displayPath.lastIndexOf('/'))}/*`);
  return [...new Set(stages)];
}
