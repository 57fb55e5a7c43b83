/**
 * Plain-text tables for command output: left-aligned columns separated by two
 * spaces, a header row, no borders, no colour (stdout may be a pipe).
 */

/** Renders `rows` under `headers`; every row must have one cell per header. */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}
