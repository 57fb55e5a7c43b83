/**
 * What `cdkd scrub` prints: per stack, each site it rewrote (or would), the
 * earlier versions it purged, and — apart, because a real run cannot fix them —
 * the output keys that hold a secret. Paths and counts only, never a value.
 */
import type { StackScrubReport } from '../engine/scrub-stack';

export function renderScrubReport(
  reports: readonly StackScrubReport[],
  options: { dryRun: boolean },
): string {
  const verb = options.dryRun ? 'would scrub' : 'scrubbed';
  const lines: string[] = [];
  let scrubbed = 0;
  let keys = 0;
  for (const r of reports) {
    const head = `${r.stackName} (${r.region})`;
    if (!r.found) {
      lines.push(`${head}: no state`);
      continue;
    }
    const count = r.sites.length + r.noncurrentVersions.reduce((n, v) => n + v.versions, 0);
    if (count > 0) scrubbed++;
    lines.push(count > 0 ? `${head}: ${verb} ${count} site(s)` : `${head}: nothing to scrub`);
    for (const s of r.sites) lines.push(`  ${s.object}: ${s.path}`);
    for (const v of r.noncurrentVersions)
      lines.push(
        `  ${v.key}: ${v.versions} earlier version(s) holding a secret in clear${options.dryRun ? '' : ' (purged)'}`,
      );
    for (const f of r.purgeFailures) lines.push(`  ${f}: earlier versions NOT purged (see the warning)`);
    for (const k of r.plaintextKeys) {
      keys++;
      lines.push(`  [!] ${k.object}: key ${k.path} holds a secret; scrub cannot rename it`);
    }
  }
  lines.push(
    `${scrubbed} stack(s) ${options.dryRun ? 'to scrub' : 'scrubbed'} of ${reports.length}` +
      (keys > 0
        ? `; ${keys} output key(s) hold a secret and were not changed: give the output a non-secret Export.Name, redeploy, and rotate the secret`
        : ''),
  );
  return lines.join('\n');
}
