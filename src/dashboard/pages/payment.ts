import type { Mode } from "../../core/merchants/records";
import type { PaymentView } from "../../core/views/payment";
import { html, type SafeHtml } from "../../html/escape";
import type { TimelineEntry } from "../data";
import type { ExplorerTemplates } from "../options";
import { csrfField, onceField, modeTag, shortTime } from "./parts";

/** A link to the explorer when a template for the network exists, else the plain value. */
export function explorerLink(explorers: Readonly<Record<string, ExplorerTemplates>>, network: string | null, kind: "tx" | "address", value: string): SafeHtml {
  const template = network ? explorers[network]?.[kind] : undefined;
  if (!template) return html`<span class="mono">${value}</span>`;
  const href = template.replace(kind === "tx" ? "{txHash}" : "{address}", encodeURIComponent(value));
  return html`<a class="mono" href="${href}" rel="noreferrer noopener">${value}</a>`;
}

/** What the detail page shows. */
export interface PaymentDetail {
  base: string;
  mode: Mode;
  payment: PaymentView;
  /** The payment's events, oldest first. */
  timeline: readonly TimelineEntry[];
  explorers: Readonly<Record<string, ExplorerTemplates>>;
  /** The CSRF token for the refund form; null for viewers, who get no form. */
  csrf: string | null;
  message: { tone: "ok" | "error"; text: string } | null;
}

/** Amounts due and received, the deposits with their confirmations, and the refund form for admins. */
export function paymentBody(detail: PaymentDetail): SafeHtml {
  const { payment, explorers } = detail;
  const deposits = payment.deposits ?? [];
  const refundable = payment.currency !== null && deposits.some((deposit) => deposit.status === "CONFIRMED");
  return html`${detail.message ? html`<p class="notice ${detail.message.tone}" role="status">${detail.message.text}</p>` : null}
<div class="grid two">
<section class="card" aria-labelledby="summary-title"><h2 id="summary-title">Summary</h2>
<dl class="facts">
<dt>Mode</dt><dd>${modeTag(detail.mode)}</dd>
<dt>Status</dt><dd data-status>${payment.status}</dd>
<dt>Amount</dt><dd>${payment.amount} ${payment.amountCurrency}</dd>
<dt>Due</dt><dd>${payment.payAmount ? `${payment.payAmount} ${payment.currency}` : "Not chosen yet"}</dd>
<dt>Received</dt><dd data-received>${payment.currency ? `${payment.receivedAmount} ${payment.currency}` : "–"}</dd>
<dt>Network</dt><dd>${payment.chain ?? "–"}</dd>
<dt>Address</dt><dd>${payment.address ? explorerLink(explorers, payment.chain, "address", payment.address) : "–"}</dd>
<dt>Order</dt><dd>${payment.metadata?.orderId === undefined ? "–" : String(payment.metadata.orderId)}</dd>
<dt>Created</dt><dd>${shortTime(payment.createdAt)}</dd>
<dt>Expires</dt><dd>${shortTime(payment.expiresAt)}</dd>
</dl></section>
<section class="card" aria-labelledby="refund-title"><h2 id="refund-title">Refund</h2>
${
  detail.csrf === null
    ? html`<p class="muted">Viewers cannot refund.</p>`
    : refundable
      ? html`<form class="stack" method="post" action="${detail.base}/payments/${encodeURIComponent(payment.id)}/refund">${csrfField(detail.csrf)}${onceField()}
<label>Amount (${payment.currency})<input name="amount" inputmode="decimal" placeholder="all received" autocomplete="off"></label>
<label>To address<input name="address" required autocomplete="off"></label>
<button type="submit" class="danger">Refund</button></form>`
      : html`<p class="muted">Nothing confirmed to refund.</p>`
}
</section>
</div>
<section class="card" aria-labelledby="deposits-title"><h2 id="deposits-title">Deposits</h2>
${
  deposits.length === 0
    ? html`<p class="muted">No deposits.</p>`
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">Transaction</th><th scope="col">Amount</th><th scope="col">Status</th><th scope="col">Confirmations</th><th scope="col">Seen</th></tr></thead><tbody>
${deposits.map(
  (deposit) =>
    html`<tr data-deposit="${deposit.id}"><td>${explorerLink(explorers, deposit.chain, "tx", deposit.txHash)}</td><td class="num">${deposit.amount} ${deposit.currency}${deposit.countsTowardPayment ? null : html` <span class="muted">(stray)</span>`}</td><td>${deposit.status}</td><td class="num">${deposit.confirmations}</td><td>${shortTime(deposit.createdAt)}</td></tr>`,
)}</tbody></table></div>`
}
</section>
<section class="card" aria-labelledby="timeline-title"><h2 id="timeline-title">Timeline and webhooks</h2>
${
  detail.timeline.length === 0
    ? html`<p class="muted">No events yet.</p>`
    : html`<ol class="timeline">${detail.timeline.map(
        (entry) =>
          html`<li data-event="${entry.type}"><time datetime="${entry.at}">${shortTime(entry.at)}</time> <code>${entry.type}</code>${entry.status ? html` <span class="muted">${entry.status}</span>` : null}${
            entry.deliveries.length
              ? html`<ul class="plain">${entry.deliveries.map(
                  (delivery) =>
                    html`<li data-event-delivery="${delivery.id}">Webhook to <code>${delivery.endpointId}</code>: ${delivery.status}, ${delivery.attempts} ${delivery.attempts === 1 ? "attempt" : "attempts"}</li>`,
                )}</ul>`
              : null
          }</li>`,
      )}</ol>`
}
</section>`;
}
