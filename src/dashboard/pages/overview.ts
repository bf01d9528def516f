import type { HealthReport } from "../../core/health/report";
import type { OperatorReport } from "../../core/operator/report";
import type { Mode } from "../../core/merchants/records";
import type { PaymentView } from "../../core/views/payment";
import { html, type SafeHtml } from "../../html/escape";
import { modeTag, paymentsTable } from "./parts";

/** A balance row as GET /v1/balances answers it (decimal strings). */
export interface BalanceRow {
  currency: string;
  available: string;
  pending: string;
}

/** What the overview shows. */
export interface OverviewData {
  base: string;
  balances: Array<{ mode: Mode; rows: BalanceRow[] }>;
  recent: PaymentView[];
  /** Endpoints that are not enabled (a 410 answer or a person disabled them), with why. */
  failingEndpoints: Array<{ mode: Mode; id: string; url: string; reason: string | null }>;
  reports: OperatorReport[];
  health: HealthReport | null;
  /** Withdrawals and refunds held for approval, both modes (`more`: past the queue's limit). */
  held: { rows: ReadonlyArray<{ kind: "withdrawal" | "refund" }>; more: boolean };
}

/** The overview's body: balances per coin and mode, what needs attention, recent payments. */
export function overviewBody(data: OverviewData): SafeHtml {
  const attention: SafeHtml[] = [];
  if (data.held.rows.length > 0) {
    const count = `${data.held.rows.length}${data.held.more ? "+" : ""}`;
    const refunds = data.held.rows.filter((row) => row.kind === "refund").length;
    attention.push(
      html`<li data-held-count="${data.held.rows.length}"><a href="${data.base}/payouts#approval-queue">${count} ${data.held.rows.length === 1 && !data.held.more ? "payout" : "payouts"} awaiting approval</a>${refunds ? ` (${refunds} of them ${refunds === 1 ? "a refund" : "refunds"})` : ""}.</li>`,
    );
  }
  if (data.health && data.health.status !== "ok") {
    for (const reason of data.health.reasons) attention.push(html`<li>Service ${data.health.status}: ${reason}</li>`);
  }
  for (const endpoint of data.failingEndpoints) {
    attention.push(
      html`<li>${modeTag(endpoint.mode)} Webhook endpoint <a class="mono" href="${data.base}/webhooks/endpoints/${encodeURIComponent(endpoint.id)}">${endpoint.url}</a> is disabled${endpoint.reason ? ` (${endpoint.reason})` : null}.</li>`,
    );
  }
  for (const report of data.reports) {
    for (const deposit of report.reversedDeposits) {
      attention.push(
        html`<li>${modeTag(report.mode)} Reversed deposit of ${deposit.amount} ${deposit.coin} to payment <a href="${data.base}/payments/${encodeURIComponent(deposit.invoiceId)}">${deposit.invoiceId}</a>.</li>`,
      );
    }
    for (const deposit of report.strayDeposits) {
      attention.push(
        html`<li>${modeTag(report.mode)} Stray deposit of ${deposit.amount} ${deposit.coin} to payment <a href="${data.base}/payments/${encodeURIComponent(deposit.invoiceId)}">${deposit.invoiceId}</a>, which asked for ${deposit.invoiceCoin ?? "another coin"}.</li>`,
      );
    }
  }
  return html`<div class="grid two">
<section class="card" aria-labelledby="balances-title"><h2 id="balances-title">Balances</h2>
<div class="table-wrap"><table><thead><tr><th scope="col">Coin</th><th scope="col">Mode</th><th scope="col">Available</th><th scope="col">Pending</th></tr></thead><tbody>
${data.balances.flatMap(({ mode, rows }) =>
  rows.map(
    (row) =>
      html`<tr data-balance="${mode}:${row.currency}"><td>${row.currency}</td><td>${modeTag(mode)}</td><td class="num">${row.available}</td><td class="num">${row.pending}</td></tr>`,
  ),
)}
</tbody></table></div></section>
<section class="card" aria-labelledby="attention-title"><h2 id="attention-title">Needs attention</h2>
${attention.length ? html`<ul class="plain" data-attention>${attention}</ul>` : html`<p class="muted">Nothing needs attention.</p>`}
</section>
</div>
<section class="card" aria-labelledby="recent-title"><h2 id="recent-title">Recent payments</h2>
${paymentsTable(data.base, data.recent, "The latest payments of both modes")}
<p><a href="${data.base}/payments">All payments</a></p>
</section>`;
}
