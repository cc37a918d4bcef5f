/** Columns padded to their widest cell; right-aligned where the column holds numbers. */
export function textTable(
  rows: readonly (readonly string[])[],
  rightAligned: readonly boolean[],
  indent = '  ',
): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map(
      (row) =>
        indent +
        row
          .map((cell, i) => (rightAligned[i] ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
          .join('  ')
          .trimEnd(),
    )
    .join('\n');
}
