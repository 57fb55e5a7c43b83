/**
 * Whether the container client cdk-assets builds images with is installed.
 * cdk-assets runs `CDK_DOCKER` (default `docker`), so the check runs the same.
 */
import { spawn } from 'node:child_process';

/** The command cdk-assets-lib uses for image assets. */
export function dockerCommand(env: NodeJS.ProcessEnv = process.env): string {
  return env.CDK_DOCKER || 'docker';
}

/** Resolves true when `<command> --version` runs and exits 0. */
export function isDockerAvailable(command: string): Promise<boolean> {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(command, ['--version'], { stdio: 'ignore' });
    } catch {
      resolve(false);
      return;
    }
    child.once('error', () => resolve(false));
    child.once('exit', (code) => resolve(code === 0));
  });
}
