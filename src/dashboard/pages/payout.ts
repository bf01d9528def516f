import { html, type SafeHtml } from "../../html/escape";
import type { TimelineEntry } from "../data";
import type { Notice } from "../kit";
import type { ExplorerTemplates } from "../options";
import type { PayoutRow } from "../payouts-data";
import { explorerLink } from "./payment";
import { csrfField, modeTag, shortTime } from "./parts";

/** What a payout's page shows. */
export interface PayoutDetail {
  base: string;
  payout: PayoutRow;
  /** Amount and fee: what the balance was debited (and what a rejection gives back). */
  debited: string;
  timeline: readonly TimelineEntry[];
  explorers: Readonly<Record<string, ExplorerTemplates>>;
  /** The CSRF token of the approve and reject forms; null for viewers. */
  csrf: string | null;
  message: Notice | null;
}

/** A payout's facts, the approve and reject forms while it is held (admins), and its events. */
export function payoutBody(detail: PayoutDetail): SafeHtml {
  const { payout, explorers, base } = detail;
  const { view } = payout;
  const action = `${base}/payouts/${encodeURIComponent(view.id)}`;
  return html`${detail.message ? html`<p class="notice ${detail.message.tone}" role="status">${detail.message.text}</p>` : null}
<div class="grid two">
<section class="card" aria-labelledby="summary-title"><h2 id="summary-title">Summary</h2>
<dl class="facts">
<dt>Kind</dt><dd>${payout.kind === "refund" ? "Refund" : "Withdrawal"}</dd>
<dt>Mode</dt><dd>${modeTag(payout.mode)}</dd>
<dt>Status</dt><dd data-status>${view.status}</dd>
${view.failureReason ? html`<dt>${view.status === "REJECTED" ? "Reason" : "Failure"}</dt><dd data-reason>${view.failureReason}</dd>` : null}
<dt>Amount</dt><dd>${view.amount} ${view.currency}</dd>
<dt>Fee</dt><dd>${view.fee} ${view.currency}</dd>
<dt>Debited</dt><dd data-debited>${detail.debited} ${view.currency}</dd>
<dt>Network</dt><dd>${view.chain}</dd>
<dt>To</dt><dd>${explorerLink(explorers, view.chain, "address", view.address)}</dd>
<dt>Transaction</dt><dd>${view.txHash ? explorerLink(explorers, view.chain, "tx", view.txHash) : "Not sent"}</dd>
${payout.paymentId ? html`<dt>Payment</dt><dd><a class="mono" href="${base}/payments/${encodeURIComponent(payout.paymentId)}">${payout.paymentId}</a></dd>` : null}
<dt>Requested by</dt><dd data-requested-by>${payout.requestedBy ?? "unknown"}</dd>
${payout.reviewedBy ? html`<dt>${view.status === "REJECTED" ? "Rejected by" : "Approved by"}</dt><dd data-reviewed-by>${payout.reviewedBy}</dd>` : null}
<dt>Created</dt><dd>${shortTime(view.createdAt)}</dd>
<dt>Updated</dt><dd>${shortTime(view.updatedAt)}</dd>
</dl></section>
<section class="card" aria-labelledby="review-title"><h2 id="review-title">Approval</h2>
${
  view.status !== "AWAITING_APPROVAL"
    ? html`<p class="muted">${payout.reviewedBy ? "Decided." : "This payout did not need approval."}</p>`
    : detail.csrf === null
      ? html`<p>Held for approval: an admin other than the requester approves or rejects it.</p>`
      : html`<p>Held for approval: the balance is debited, nothing is sent. Approving sends it; rejecting gives back ${detail.debited} ${view.currency}. The requester may not approve it.</p>
<div class="grid"><form class="stack" method="post" action="${action}/approve">${csrfField(detail.csrf)}<button type="submit">Approve</button></form>
<form class="stack" method="post" action="${action}/reject">${csrfField(detail.csrf)}<label>Reason<input name="reason" autocomplete="off" maxlength="200" placeholder="rejected"></label><button type="submit" class="danger">Reject</button></form></div>`
}
</section>
</div>
<section class="card" aria-labelledby="timeline-title"><h2 id="timeline-title">Status history and webhooks</h2>
${
  detail.timeline.length === 0
    ? html`<p class="muted">No events.</p>`
    : html`<ol class="timeline">${detail.timeline.map(
        (entry) =>
          html`<li data-event="${entry.type}"><time datetime="${entry.at}">${shortTime(entry.at)}</time> <code>${entry.type}</code>${entry.status ? html` <span class="muted">${entry.status}</span>` : null}${
            entry.deliveries.length
              ? html`<ul class="plain">${entry.deliveries.map(
                  (delivery) =>
                    html`<li>Webhook to <code>${delivery.endpointId}</code>: ${delivery.status}, ${delivery.attempts} ${delivery.attempts === 1 ? "attempt" : "attempts"}</li>`,
                )}</ul>`
              : null
          }</li>`,
      )}</ol>`
}
</section>`;
}
