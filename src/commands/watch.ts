import {
  appConfigFlags,
  appFlags,
  packConfigFlags,
  packFlags,
  stackSelectionFlags,
  stackSelector,
} from '../cli/app-flags';
import { CdkdCommand } from '../cli/base-command';
import { deployConfigFlags, deployFlags } from '../cli/deploy-flags';
import { openEngineSession } from '../cli/engine-session';
import type { EngineSession } from '../cli/engine-session';
import { stateConfigFlags, stateFlags } from '../cli/state-flags';
import { deployInSession, selectWithParameters } from '../cli/deploy-session';
import type { ParameterAssignment } from '../template/parameters';
import { parseParameterArgs } from '../template/parameters';
import { WatchReporter, describeTrigger, describeWatchDeploy } from '../ui/watch-report';
import { ConfigError, formatError } from '../util/errors';
import { watchFiles } from '../watch/file-events';
import { fileFilter } from '../watch/file-filter';
import { WatchLoop } from '../watch/watch-loop';
import type { Trigger } from '../watch/watch-loop';
import type { StackSelector } from '../synth/stack-selection';

const { 'require-approval': _requireApproval, ...watchDeployFlags } = deployFlags;

export default class Watch extends CdkdCommand {
  static override description = `Deploy the selected stacks, then again each time a file of the app changes
The files are the ones cdk.json "watch" names ("include" globs, default everything; "exclude" globs), as with cdk watch; the cloud assembly directory, dot files and node_modules are never watched. Each change re-synthesizes the app and deploys only what changed, with one line per deploy (--verbose: every event). A failed deploy is reported and watching goes on; changes made during a deploy are deployed right after it. As with cdk watch, changes are not held for approval (--require-approval never). Ctrl-C stops after the deploy in progress has saved its state and released its locks.`;

  static override examples = ['<%= config.bin %> watch', "<%= config.bin %> watch 'Dev/*' --concurrency 20"];

  static override strict = false;
  static override usage = 'watch [STACKS...]';

  static override flags = {
    ...appFlags,
    ...stackSelectionFlags,
    ...stateFlags,
    ...packFlags,
    ...watchDeployFlags,
  };

  async run(): Promise<void> {
    const { flags, argv } = await this.parse(Watch);
    if (flags.json) throw new ConfigError('cdkd watch has no --json output: it prints one line per deploy.');
    const config = this.resolveConfig(flags, {
      ...appConfigFlags(flags),
      ...stateConfigFlags(flags),
      ...deployConfigFlags(flags),
      ...packConfigFlags(flags),
    });
    if (!config.watch) {
      throw new ConfigError(
        `cdkd watch needs to know which files to watch: ${config.cwd}/cdk.json has no "watch" key.`,
        {
          code: 'WATCH_CONFIG_MISSING',
          remedy:
            'Add one to cdk.json, as for cdk watch: "watch": { "include": ["**"], "exclude": ["test"] }',
        },
      );
    }
    const parameters = parseParameterArgs(flags.parameters ?? []);
    const selector = stackSelector(argv as string[], flags);
    const reporter = new WatchReporter();
    const session = await openEngineSession({
      config,
      oclifConfig: this.config,
      progress: 'events',
      command: 'watch',
      terminal: this.terminal(config, flags),
      ioHost: reporter,
    });
    if (config.verbose) reporter.showEvents(session.renderer);
    try {
      const loop = new WatchLoop({
        deploy: (trigger) => this.deployOnce(session, reporter, trigger, selector, parameters),
        onError: (err, trigger) =>
          reporter.line(`✗ ${describeTrigger(trigger)} → ${formatError(err).split('\n').join(' ')}`, 'error'),
      });
      const watcher = watchFiles(config.cwd, fileFilter(config.watch, config.output), {
        ready: () => {
          reporter.line(`Watching ${config.cwd} for changes (Ctrl-C to stop)`);
          loop.ready();
        },
        changed: (file) => loop.changed(file),
        error: (err) => reporter.line(`✗ watching failed: ${(err as Error).message}`, 'error'),
      });
      await new Promise<void>((resolve) => {
        if (session.signal.aborted) resolve();
        session.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      await watcher.close();
      await loop.stop();
      reporter.line('Stopped watching; state is saved and the stack locks are released.');
    } finally {
      session.close();
    }
  }

  private async deployOnce(
    session: EngineSession,
    reporter: WatchReporter,
    trigger: Trigger,
    selector: StackSelector,
    parameters: ParameterAssignment[],
  ): Promise<void> {
    const started = Date.now();
    const assembly = await session.synthesize();
    try {
      const stacks = selectWithParameters(assembly, selector, parameters);
      const result = await deployInSession(session, stacks, parameters);
      reporter.line(describeWatchDeploy(trigger, result, Date.now() - started), result.ok ? 'info' : 'error');
    } finally {
      await assembly.dispose();
    }
  }
}
