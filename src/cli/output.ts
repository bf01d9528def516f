/** What a command produced: its exit code, the machine-readable result and the text for a terminal. */
export interface CommandResult {
  /** 0: success, healthy or degraded, no differences; 1: unhealthy, differences found, or failed. */
  exitCode: 0 | 1;
  /** Printed as JSON with `--json`. */
  json: unknown;
  /** Printed otherwise: short, readable lines. */
  text: string;
}

/**
 * Rows as a table with a header, columns padded to their widest cell. A table has no borders:
 * it stays readable in a terminal and easy to cut with `awk`.
 */
export function table(headers: string[], rows: ReadonlyArray<ReadonlyArray<string | number | null | undefined>>): string {
  const cells = [headers, ...rows.map((row) => row.map((cell) => (cell === null || cell === undefined || cell === "" ? "-" : String(cell))))];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => row[column]?.length ?? 0)));
  return cells.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join("  ")).join("\n");
}

/** A success with its JSON and text. */
export const ok = (json: unknown, text: string): CommandResult => ({ exitCode: 0, json, text });
