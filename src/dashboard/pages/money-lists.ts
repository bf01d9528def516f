import type { Mode } from "../../core/merchants/records";
import type { ConversionView, RefundView } from "../../core/views/funds";
import { html, type SafeHtml } from "../../html/escape";
import { payoutLink } from "./payouts";
import { modeTag, shortTime } from "./parts";

/** A list page's filters and pager, as its route read them. */
export interface ListPage<T> {
  base: string;
  rows: readonly T[];
  mode: Mode | undefined;
  nextHref: string | null;
}

/** The mode filter of a list (plus any fields before it) and its Filter button. */
export function modeFilter(action: string, mode: Mode | undefined, fields: SafeHtml | null = null): SafeHtml {
  const option = (value: string, label = value) => html`<option value="${value}"${value === (mode ?? "") ? html` selected` : null}>${label}</option>`;
  return html`<form class="filters" method="get" action="${action}">${fields}<label>Mode<select name="mode">${option("", "Both")}${option("live")}${option("test")}</select></label><button type="submit">Filter</button></form>`;
}

/** The "older" link of a list, or its end. */
export function pager(nextHref: string | null, label: string): SafeHtml {
  return html`<div class="pager">${nextHref ? html`<a href="${nextHref}" rel="next">${label}</a>` : html`<span class="muted">End of the list.</span>`}</div>`;
}

/** A link to a payment's page. */
function paymentLink(base: string, id: string): SafeHtml {
  return html`<a class="mono" href="${base}/payments/${encodeURIComponent(id)}">${id}</a>`;
}

/** The refunds of both modes: each links to its payout page (status, approval) and to the payment it refunds. */
export function refundsBody(page: ListPage<RefundView> & { paymentId: string | undefined }): SafeHtml {
  const paymentField = html`<label>Payment id<input name="paymentId" value="${page.paymentId ?? ""}" autocomplete="off" size="24"></label>`;
  return html`<section class="card" aria-labelledby="list-title"><h2 id="list-title">Refunds</h2>
${modeFilter(`${page.base}/refunds`, page.mode, paymentField)}
${
  page.rows.length === 0
    ? html`<p class="muted">No refunds.</p>`
    : html`<div class="table-wrap"><table><caption class="muted">Newest first; a refund held for approval is approved or rejected on its page</caption>
<thead><tr><th scope="col">Refund</th><th scope="col">Mode</th><th scope="col">Status</th><th scope="col">Amount</th><th scope="col">Payment</th><th scope="col">To</th><th scope="col">Created</th></tr></thead>
<tbody>${page.rows.map(
        (row) =>
          html`<tr data-refund="${row.id}"><td class="nowrap">${payoutLink(page.base, row.id)}</td><td>${modeTag(row.livemode ? "live" : "test")}</td><td>${row.status}</td><td class="num">${row.amount} ${row.currency}</td><td class="nowrap">${paymentLink(page.base, row.paymentId)}</td><td class="nowrap"><span class="mono">${row.address}</span> <span class="muted">(${row.chain})</span></td><td class="nowrap">${shortTime(row.createdAt)}</td></tr>`,
      )}</tbody></table></div>`
}
${pager(page.nextHref, "Older refunds")}
</section>`;
}

/** The conversions of both modes, auto-conversions of payments linked to their payment. */
export function conversionsBody(page: ListPage<ConversionView>): SafeHtml {
  return html`<section class="card" aria-labelledby="list-title"><h2 id="list-title">Conversions</h2>
${modeFilter(`${page.base}/conversions`, page.mode)}
${
  page.rows.length === 0
    ? html`<p class="muted">No conversions.</p>`
    : // A row may hold no link: the wrap takes focus itself, so a keyboard can scroll it on a phone.
      html`<div class="table-wrap" tabindex="0" role="region" aria-label="Conversions, scrollable"><table><caption class="muted">Newest first</caption>
<thead><tr><th scope="col">Conversion</th><th scope="col">Mode</th><th scope="col">Status</th><th scope="col">From</th><th scope="col">To</th><th scope="col">Rate</th><th scope="col">Payment</th><th scope="col">Created</th></tr></thead>
<tbody>${page.rows.map(
        (row) =>
          html`<tr data-conversion="${row.id}"><td class="mono nowrap">${row.id}</td><td>${modeTag(row.livemode ? "live" : "test")}</td><td>${row.status}</td><td class="num">${row.amount} ${row.fromCurrency}</td><td class="num">${row.toAmount} ${row.toCurrency}</td><td class="num">${row.rate}</td><td class="nowrap">${row.paymentId ? paymentLink(page.base, row.paymentId) : "–"}</td><td class="nowrap">${row.createdAt ? shortTime(row.createdAt) : ""}</td></tr>`,
      )}</tbody></table></div>`
}
${pager(page.nextHref, "Older conversions")}
</section>`;
}
