/**
 * Text of `cdkd packs install` and `cdkd packs upgrade`: one line per pack,
 * with its version before and after.
 */
import { LOCK_FILE_NAME } from '../packs/layout';
import type { PacksInstallResult } from '../packs/project-packs';

export function renderPackChanges(
  result: PacksInstallResult,
  mode: 'install' | 'install-frozen' | 'upgrade',
): string[] {
  if (result.packs.length === 0 && result.removed.length === 0) {
    return ['No provider packs are declared; nothing to install.'];
  }
  const lines: string[] = [];
  if (result.packs.length > 0) {
    lines.push(
      mode === 'install-frozen'
        ? `Installed the packs ${LOCK_FILE_NAME} locks into ${result.dir}:`
        : mode === 'upgrade'
          ? `Upgraded the packs in ${result.dir}:`
          : `Installed into ${result.dir}:`,
    );
    for (const p of result.packs) {
      const change =
        p.previous === undefined
          ? `${p.version} (new)`
          : p.previous === p.version
            ? `${p.version} (unchanged)`
            : `${p.previous} → ${p.version}`;
      lines.push(`  ${p.name} ${change}   [${p.spec}]`);
    }
  }
  for (const name of result.removed) lines.push(`  ${name} removed (no longer declared)`);
  if (result.lockWritten) lines.push(`Locked in ${LOCK_FILE_NAME}: commit it.`);
  return lines;
}
