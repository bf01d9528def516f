import type { Command, CommandInput } from "../command";
import { stringFlag } from "../command";
import { UsageError } from "../errors";
import { ok } from "../output";

/** The flags of `rescan`: both required, the height a whole number. */
function rescanInput(values: CommandInput["values"]): { chain: string; from: number } {
  const chain = stringFlag(values, "chain");
  const from = stringFlag(values, "from");
  if (!chain) throw new UsageError("--chain is required", "rescan");
  if (from === undefined || !/^\d+$/.test(from) || !Number.isSafeInteger(Number(from)))
    throw new UsageError("--from must be a block height (a whole number)", "rescan");
  return { chain, from: Number(from) };
}

/** `rescan --chain X --from HEIGHT`. */
export const rescanCommand: Command = {
  name: "rescan",
  summary: "Make a live chain's deposit scan read again from a block",
  usage: "rescan --chain NETWORK --from HEIGHT",
  help: [
    "Asks the deposit scan of the live chain NETWORK (ETH, LTC..., or its feed such as evm:ETH) to",
    "read again from block HEIGHT at its next round, in the running service: deposits missed while",
    "it was down, or after restoring a backup. What is found again is applied once (nothing is",
    "credited twice). Exit 1 for a chain that is not configured or cannot rescan.",
  ].join("\n"),
  flags: { chain: { type: "string" }, from: { type: "string" } },
  args: [],
  check: ({ values }) => void rescanInput(values),
  async run({ payments, values }) {
    const { chain, from } = rescanInput(values);
    await payments.admin.rescan(chain, from);
    return ok({ chain, fromHeight: from, queued: true }, `rescan of ${chain} from block ${from} queued: the service's next deposit sync reads from there`);
  },
};
