import { randomUUID } from "node:crypto";
import type { PaymentView } from "../../core/views/payment";
import { html, type SafeHtml } from "../../html/escape";
import type { Mode } from "../../core/merchants/records";

/** A "live" or "test" mark. */
export function modeTag(mode: Mode): SafeHtml {
  return html`<span class="tag ${mode}">${mode}</span>`;
}

/** An ISO time as "2026-03-01 12:00 UTC". */
export function shortTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** The payments table of the overview and the list; ids link to the detail page. */
export function paymentsTable(base: string, rows: readonly PaymentView[], caption: string): SafeHtml {
  if (rows.length === 0) return html`<p class="muted">No payments.</p>`;
  return html`<div class="table-wrap"><table>
<caption class="muted">${caption}</caption>
<thead><tr><th scope="col">Payment</th><th scope="col">Mode</th><th scope="col">Status</th><th scope="col">Amount</th><th scope="col">Received</th><th scope="col">Order</th><th scope="col">Created</th></tr></thead>
<tbody>${rows.map(
    (row) => html`<tr data-payment="${row.id}">
<td><a class="mono" href="${base}/payments/${encodeURIComponent(row.id)}">${row.id}</a></td>
<td>${modeTag(row.livemode ? "live" : "test")}</td>
<td>${row.status}</td>
<td class="num">${row.amount} ${row.amountCurrency}</td>
<td class="num">${row.currency ? `${row.receivedAmount} ${row.currency}${row.chain ? ` (${row.chain})` : ""}` : "–"}</td>
<td>${typeof row.metadata?.orderId === "string" || typeof row.metadata?.orderId === "number" ? String(row.metadata.orderId) : ""}</td>
<td>${shortTime(row.createdAt)}</td>
</tr>`,
  )}</tbody></table></div>`;
}

/**
 * The hidden one-time key of a form that creates something (a refund, a payout, an endpoint):
 * new on every rendering, sent as the call's idempotency key, so the same form sent twice acts
 * once and answers the first result again.
 */
export function onceField(): SafeHtml {
  return html`<input type="hidden" name="_once" value="${randomUUID()}">`;
}

/** The hidden CSRF field every form carries. */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}
