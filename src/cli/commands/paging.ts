import type { OperatorPageOptions } from "../../operator";
import type { CommandInput, Flags } from "../command";
import { stringFlag } from "../command";
import { UsageError } from "../errors";

/** The paging flags of the list commands. */
export const pageFlags: Flags = { limit: { type: "string" }, after: { type: "string" } };

/** `--limit` and `--after` as the admin lists take them; a bad limit is a usage error. */
export function pageOptions(values: CommandInput["values"], command: string): OperatorPageOptions {
  const options: OperatorPageOptions = {};
  const limit = stringFlag(values, "limit");
  if (limit !== undefined) {
    if (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > 1000) throw new UsageError("--limit must be a whole number from 1 to 1000", command);
    options.limit = Number(limit);
  }
  const after = stringFlag(values, "after");
  if (after !== undefined) options.after = after;
  return options;
}
