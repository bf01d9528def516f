import { html, type SafeHtml } from "../../html/escape";
import type { HeldRow } from "../payouts-data";
import { modeTag, shortTime } from "./parts";

/** The approval queue of every merchant the user may see; each payout is decided on its merchant's page. */
export function approvalsBody(base: string, rows: readonly HeldRow[], more: boolean): SafeHtml {
  if (rows.length === 0) return html`<section class="card"><p class="muted">Nothing is waiting for approval.</p></section>`;
  return html`<section class="card" aria-labelledby="queue-title"><h2 id="queue-title">Awaiting approval</h2>
<p>Withdrawals and refunds of your merchants held for approval. Open one to approve or reject it: someone other than the requester decides.</p>
<div class="table-wrap"><table><caption class="muted">Waiting longest first</caption>
<thead><tr><th scope="col">Payout</th><th scope="col">Merchant</th><th scope="col">Kind</th><th scope="col">Mode</th><th scope="col">Amount</th><th scope="col">Requested by</th><th scope="col">Created</th></tr></thead>
<tbody>${rows.map(
    (row) =>
      html`<tr data-held="${row.view.id}"><td class="nowrap"><a class="mono" href="${base}/m/${encodeURIComponent(row.merchant.id)}/payouts/${encodeURIComponent(row.view.id)}">${row.view.id}</a></td><td>${row.merchant.name}</td><td>${row.kind}</td><td>${modeTag(row.mode)}</td><td class="num">${row.view.amount} ${row.view.currency}</td><td>${row.requestedBy ?? html`<span class="muted">unknown</span>`}</td><td class="nowrap">${shortTime(row.view.createdAt)}</td></tr>`,
  )}</tbody></table></div>
${more ? html`<p class="muted">More are waiting: each merchant's payouts page filters its own by status AWAITING_APPROVAL.</p>` : null}
</section>`;
}
