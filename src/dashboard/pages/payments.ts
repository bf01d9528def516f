import type { PaymentView } from "../../core/views/payment";
import { INVOICE_STATUSES } from "../../core/invoices/records";
import { html, type SafeHtml } from "../../html/escape";
import type { PaymentFilters } from "../data";
import { paymentsTable } from "./parts";

/** The list page: filters, a search by payment id, the table and the next-page link. */
export function paymentsBody(base: string, filters: PaymentFilters & { q?: string }, rows: readonly PaymentView[], nextHref: string | null): SafeHtml {
  const option = (value: string, current: string | undefined, label = value) =>
    html`<option value="${value}"${value === current ? html` selected` : null}>${label}</option>`;
  return html`<section class="card" aria-labelledby="search-title"><h2 id="search-title">Find payments</h2>
<form class="filters" method="get" action="${base}/payments">
<label>Payment id, order id, address or transaction<input name="q" value="${filters.q ?? ""}" autocomplete="off"></label>
<label>Status<select name="status">${option("", filters.status, "Any")}${INVOICE_STATUSES.map((status) => option(status, filters.status))}</select></label>
<label>Mode<select name="mode">${option("", filters.mode, "Both")}${option("live", filters.mode)}${option("test", filters.mode)}</select></label>
<label>Network<input name="chain" value="${filters.chain ?? ""}" size="6" placeholder="ETH"></label>
<label>Created from<input type="date" name="from" value="${filters.createdFrom?.slice(0, 10) ?? ""}"></label>
<label>Created before<input type="date" name="to" value="${filters.createdTo?.slice(0, 10) ?? ""}"></label>
<button type="submit">Filter</button>
</form></section>
<section class="card" aria-labelledby="list-title"><h2 id="list-title">Payments</h2>
${paymentsTable(base, rows, "Newest first")}
<div class="pager">${nextHref ? html`<a href="${nextHref}" rel="next">Older payments</a>` : html`<span class="muted">End of the list.</span>`}</div>
</section>`;
}
