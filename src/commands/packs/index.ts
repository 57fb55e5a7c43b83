import { CdkdCommand } from '../../cli/base-command';
import { loadPacks } from '../../cli/load-provider-packs';
import { LOCK_FILE_NAME } from '../../packs/layout';
import type { DeclaredPackStatus } from '../../packs/status';
import { formatTable } from '../../ui/table';

export interface PacksListResult {
  /** Where the packs are declared; absent when the project declares none. */
  declaredIn?: string;
  packs: DeclaredPackStatus[];
  /** Packs the lock has that are no longer declared. */
  lockedNotDeclared: string[];
}

export default class Packs extends CdkdCommand {
  static override summary =
    "List the project's declared provider packs: declared, locked and installed versions";

  static override description = `Reads the packs declared under "packs" (cdkd config file) or context.cdkd.packs (cdk.json), the lock (${LOCK_FILE_NAME}) and what \`cdkd packs install\` installed in .cdkd/packs, loads the installed packs and says, per pack, whether deploy can use it and the types it provisions.`;

  static override examples = ['<%= config.bin %> packs', '<%= config.bin %> packs --json'];

  static override enableJsonFlag = true;

  async run(): Promise<PacksListResult> {
    const { flags } = await this.parse(Packs);
    const config = this.resolveConfig(flags);
    const session = await loadPacks(this.config, config);
    const declared = new Set(session.statuses.map((s) => s.name));
    const result: PacksListResult = {
      ...(config.packs.declaredIn ? { declaredIn: config.packs.declaredIn } : {}),
      packs: session.statuses,
      lockedNotDeclared: Object.keys(session.lock?.packs ?? {}).filter((n) => !declared.has(n)),
    };
    if (this.jsonEnabled()) return result;
    if (session.statuses.length === 0) {
      this.log(
        'No provider packs are declared: add "packs" to the cdkd config file, or context.cdkd.packs to cdk.json, then run `cdkd packs install`.',
      );
    } else {
      this.log(`Declared in ${config.packs.declaredIn}:`);
      this.log(
        formatTable(
          ['PACK', 'DECLARED', 'LOCKED', 'INSTALLED', 'STATUS'],
          session.statuses.map((s) => [
            s.name,
            s.spec,
            s.locked ?? '-',
            s.installed ?? '-',
            s.state === 'ok' ? `ok${s.types.length ? ` (${s.types.join(', ')})` : ''}` : s.state,
          ]),
        ),
      );
    }
    for (const s of session.statuses) {
      if (s.state !== 'ok') this.logToStderr(`Warning: ${s.name}: ${s.problem}\n${s.remedy ?? ''}`.trimEnd());
    }
    if (result.lockedNotDeclared.length > 0) {
      this.logToStderr(
        `Note: ${LOCK_FILE_NAME} still locks ${result.lockedNotDeclared.join(', ')}, no longer declared; \`cdkd packs install\` removes ${result.lockedNotDeclared.length === 1 ? 'it' : 'them'}.`,
      );
    }
    return result;
  }
}
