import type { RecordRef } from "../../core/ledger/entries";
import { html, type SafeHtml } from "../../html/escape";

/**
 * A link to the page of the record a ledger or audit entry is about. A refund and an
 * auto-conversion are shown on their payment's page, so they link there; a conversion the
 * merchant asked for has no page of its own and shows its id.
 */
export function recordLink(base: string, record: RecordRef): SafeHtml {
  const payment = (id: string) => html`<a class="mono" href="${base}/payments/${encodeURIComponent(id)}">${id}</a>`;
  switch (record.type) {
    case "payment":
      return html`Payment ${payment(record.id)}`;
    case "payout":
      return html`Payout <a class="mono" href="${base}/payouts/${encodeURIComponent(record.id)}">${record.id}</a>`;
    case "refund":
      return html`Refund <code>${record.id}</code> of payment ${payment(record.paymentId)}`;
    case "conversion":
      return record.paymentId ? html`Conversion <code>${record.id}</code> of payment ${payment(record.paymentId)}` : html`Conversion <code>${record.id}</code>`;
  }
}

/** A pager: the link to the next (older) page, or the end of the list. */
export function pager(nextHref: string | null, label: string): SafeHtml {
  return html`<div class="pager">${nextHref ? html`<a href="${nextHref}" rel="next">${label}</a>` : html`<span class="muted">End of the list.</span>`}</div>`;
}
