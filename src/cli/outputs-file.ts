/**
 * `--outputs-file`: the outputs of every deployed stack as JSON, the way the
 * CDK CLI writes them (`{ "StackName": { "OutputKey": value } }`), each output
 * once (export aliases are not outputs). Stacks that did not deploy are left
 * out, so a partial failure still records what did.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DeployStackResult } from '../engine/deploy-stack';
import { presentOutputs } from '../ui/outputs';
import { redactSecrets } from '../template/redaction';
import { ConfigError } from '../util/errors';

/** Writes the file (creating its directory) and returns its absolute path. */
export function writeOutputsFile(file: string, stacks: readonly DeployStackResult[], cwd: string): string {
  const target = path.resolve(cwd, file);
  const content: Record<string, Record<string, unknown>> = {};
  for (const s of stacks) if (s.ok) content[s.stackName] = presentOutputs(s.outputs, s.exportNames).outputs;
  try {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, `${JSON.stringify(redactSecrets(content), null, 2)}\n`);
  } catch (err) {
    throw new ConfigError(`Cannot write the outputs file ${target}: ${(err as Error).message}`, {
      cause: err,
      remedy: 'Pass --outputs-file a path in a writable directory.',
    });
  }
  return target;
}
