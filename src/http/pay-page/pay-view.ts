import type { PayerView } from "../../core/views/payer";
import { html, type SafeHtml } from "./escape";
import type { Page } from "./layout";
import { coinAmount, expiryTimer, notice, refreshHint, statusPill, type PageLinks } from "./parts";

/**
 * A coin is chosen (or fixed, whitelabel) and the invoice is open: what to send, where, the QR
 * code and the time left. Once a deposit covering the amount is seen, only the wait for
 * confirmations is shown.
 */
export function payPage(view: PayerView, links: PageLinks, qr: SafeHtml | null): Omit<Page, "merchant"> {
  const coin = view.coin ?? "";
  const title = `Pay ${view.amount} ${view.amountCurrency}`;
  const heading = html`<h1>Pay with ${view.coinName} (${coin})</h1>
<p class="sub">Order total <strong>${view.amount}&nbsp;${view.amountCurrency}</strong></p>
${statusPill(view.status)}`;

  if (view.awaitingConfirmations && !view.partiallyPaid) {
    return {
      title,
      refreshSeconds: 20,
      body: html`${heading}
${notice("info", html`<strong>Payment detected.</strong> We have seen ${coinAmount(view.receivedAmount ?? "0", coin)} on the ${view.networkName} network and are waiting for it to be confirmed. This can take a few minutes; you may keep this page open.`)}
${overpaidNotice(view)}
<dl class="summary"><dt>Amount due</dt><dd>${coinAmount(view.payAmount ?? "", coin)}</dd><dt>Sent to</dt><dd><code>${view.address}</code></dd></dl>
${refreshHint(links.page)}`,
    };
  }

  const partial = view.partiallyPaid;
  return {
    title,
    refreshSeconds: 20,
    body: html`${heading}
${partial ? notice("warn", html`<strong>Partially paid.</strong> We received ${coinAmount(view.receivedAmount ?? "0", coin)} of ${coinAmount(view.payAmount ?? "", coin)}${view.awaitingConfirmations ? " (waiting for confirmations)" : ""}. Send the remaining ${coinAmount(view.remaining ?? "", coin)} to the same address before the time runs out.`) : null}
<div class="field">
<span class="label">${partial ? "Remaining to send" : "Amount to send"}</span>
<div class="amount" data-amount>${partial ? view.remaining : view.payAmount} <small>${coin}</small></div>
${
  view.fee !== null
    ? html`<p class="meta" data-fee>${partial ? html`The total of ${coinAmount(view.payAmount ?? "", coin)} includes` : "Includes"} the 0.5% payment fee of ${coinAmount(view.fee, coin)}.</p>`
    : null
}
</div>
<div class="field">
<span class="label">Network</span>
<div>${view.networkName}</div>
<p class="meta">Send only ${coin} on the ${view.networkName} network; funds sent on any other network may be lost.</p>
</div>
${qr ? html`<div class="qr" role="img" aria-label="QR code for the payment">${qr}</div>` : null}
<div class="field">
<span class="label">Deposit address</span>
<div class="copy-row"><code class="address" id="pay-address" data-address>${view.address}</code><button type="button" class="secondary" data-copy="pay-address" hidden>Copy</button></div>
</div>
${expiryTimer(view.expiresAt, view.secondsLeft)}
${refreshHint(links.page)}`,
  };
}

/** Shown when more than payAmount came in: the excess goes to the merchant, who can refund it. */
export function overpaidNotice(view: PayerView): SafeHtml | null {
  if (view.overpaid === null) return null;
  return notice(
    "warn",
    html`<strong>Overpaid.</strong> You sent ${coinAmount(view.overpaid, view.coin ?? "")} more than the amount due. The merchant has received it; contact them about the difference.`,
  );
}
