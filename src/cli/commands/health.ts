import type { HealthReport } from "../../index";
import type { Command } from "../command";
import { table } from "../output";

/** `health`: the one-shot health report; exit 1 when unhealthy. */
export const healthCommand: Command = {
  name: "health",
  summary: "Check storage, live nodes, prices and the webhook backlog",
  usage: "health",
  help: [
    "Probes the storage, checks each live chain's node (its network and keys) and reads its head,",
    "reads how far the deposit scan got from storage, asks for a price of every live coin, and",
    "counts webhook deliveries waiting for a retry. A node that does not answer is unhealthy.",
    "Exit 0 when ok or degraded, 1 when unhealthy.",
  ].join("\n"),
  flags: {},
  args: [],
  async run({ payments }) {
    const report = await payments.health({ oneShot: true });
    return { exitCode: report.status === "unhealthy" ? 1 : 0, json: report, text: healthText(report) };
  },
};

function healthText(report: HealthReport): string {
  const lines = [`status: ${report.status}`];
  for (const reason of report.reasons) lines.push(`  - ${reason}`);
  lines.push(`storage: ${report.storage.reachable ? `reachable (${report.storage.roundTripMs} ms)` : "NOT reachable"}`);
  if (report.chains.length === 0) lines.push("chains: none configured");
  else {
    lines.push(
      "",
      table(
        ["CHAIN", "STATE", "NODE", "HEIGHT", "SCANNED", "LAG", "PAYOUTS"],
        report.chains.map((chain) => [
          chain.chain,
          chain.state,
          chain.nodeReachable ? "up" : "DOWN",
          chain.nodeHeight,
          chain.scannedHeight,
          chain.lagBlocks === null ? null : `${chain.lagBlocks} (${chain.lagSeconds} s)`,
          chain.pendingPayouts,
        ]),
      ),
    );
    const wallets = report.chains.flatMap((chain) =>
      (chain.hotWallet ?? []).map((balance) => [chain.chain, balance.coin, balance.amount, balance.low ? "LOW" : "ok"]),
    );
    if (wallets.length > 0) lines.push("", table(["HOT WALLET", "COIN", "BALANCE", ""], wallets));
  }
  if (report.pricing.length > 0) {
    lines.push(`prices: ${report.pricing.map((price) => `${price.coin}/${price.quote} ${price.available ? "ok" : "MISSING"}`).join(", ")}`);
  }
  const hooks = report.webhooks;
  lines.push(
    hooks === null
      ? "webhooks: backlog not read (the storage did not answer in time)"
      : `webhooks: ${hooks.retrying} retrying, ${hooks.due} due (oldest ${hooks.oldestDueSeconds} s), ${hooks.failingEndpoints} endpoint(s) failing`,
  );
  return lines.join("\n");
}
