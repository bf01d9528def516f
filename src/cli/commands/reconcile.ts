import type { ReconcileCount, ReconcileReport, ReconcileRow } from "../../operator";
import type { Command } from "../command";
import { stringFlag } from "../command";
import { table } from "../output";

/** `reconcile [--chain X]`: the records against the chains; exit 1 unless clean. */
export const reconcileCommand: Command = {
  name: "reconcile",
  summary: "Compare the records with what the live chains hold",
  usage: "reconcile [--chain NETWORK]",
  help: [
    "Compares, per live chain and coin, what the records say the service holds with what the chain",
    "holds, then per asset what the chains hold against what is owed to merchants (see Reconciliation",
    "in docs/operations.md). One line per chain and coin with its difference and the causes that",
    "explain amounts in flight. --chain: only the live chain of that network (ETH, LTC...).",
    "Exit 0 when clean, 1 when a difference is found or a chain could not be read.",
  ].join("\n"),
  flags: { chain: { type: "string" } },
  args: [],
  async run({ payments, values }) {
    const chain = stringFlag(values, "chain");
    const report = await payments.admin.reconcile(chain === undefined ? {} : { chain });
    return { exitCode: report.clean ? 0 : 1, json: report, text: reconcileText(report) };
  },
};

/** The non-zero explained items of a row, as words: what accounts for amounts in flight. */
function causes(row: ReconcileRow): string {
  const named: Array<[string, ReconcileCount]> = [
    ["payouts in flight", row.explained.payoutsInFlight],
    ["payouts not sent", row.explained.payoutsNotSent],
    ["pending deposits", row.explained.pendingDeposits],
    ["reversed deposits", row.explained.reversedDeposits],
    ["stray deposits", row.explained.strayDeposits],
  ];
  return named
    .filter(([, count]) => count.count > 0)
    .map(([name, count]) => `${count.count} ${name} (${count.amount})`)
    .join(", ");
}

function reconcileText(report: ReconcileReport): string {
  const rows: Array<Array<string | number | null>> = [];
  for (const chain of report.chains) {
    if (chain.error !== undefined) {
      rows.push([chain.network, "-", null, null, null, `not read: ${chain.error}`]);
      continue;
    }
    for (const row of chain.rows) rows.push([chain.network, row.coin, row.difference, row.expected, row.onChain, causes(row)]);
    for (const token of chain.unlistedTokens)
      rows.push([chain.network, token.token, null, null, token.amount, `${token.transfers} unlisted-token transfer(s), raw units`]);
  }
  const lines = rows.length === 0 ? ["no live chains"] : [table(["CHAIN", "COIN", "DIFFERENCE", "EXPECTED", "ON CHAIN", "CAUSES"], rows)];
  if (report.assets.length > 0) {
    lines.push(
      "",
      table(
        ["ASSET", "OWED", "FEES", "NETWORK FEES", "HELD", "SURPLUS", ""],
        report.assets.map((asset) => [asset.asset, asset.owed, asset.fees, asset.networkFees, asset.held, asset.surplus, asset.shortfall ? "SHORTFALL" : ""]),
      ),
    );
  }
  lines.push("", `${report.clean ? "clean" : "NOT clean"}: ${report.differences} difference(s), ${report.errors} chain(s) not read`);
  return lines.join("\n");
}
