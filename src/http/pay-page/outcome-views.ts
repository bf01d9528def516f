import type { PayerView } from "../../core/views/payer";
import { html } from "./escape";
import type { Page } from "./layout";
import { coinAmount, notice, statusPill } from "./parts";
import { overpaidNotice } from "./pay-view";

/** PAID: a receipt, the overpayment if any, and the way back to the merchant. */
export function paidPage(view: PayerView): Omit<Page, "merchant"> {
  const coin = view.coin ?? "";
  return {
    title: "Payment received",
    body: html`<div class="mark ok" aria-hidden="true">&#10003;</div>
<h1 class="center">Payment received</h1>
<p class="sub center">Thank you. Your payment of <strong>${view.amount}&nbsp;${view.amountCurrency}</strong> is confirmed.</p>
<div class="center">${statusPill(view.status)}</div>
<dl class="summary">
<dt>Received</dt><dd data-received>${coinAmount(view.receivedAmount ?? "0", coin)}</dd>
<dt>Network</dt><dd>${view.networkName}</dd>
</dl>
${overpaidNotice(view)}
${view.returnUrl ? html`<a class="button block" href="${view.returnUrl}" rel="noreferrer" data-return-link>Return to the merchant</a>` : null}`,
  };
}

/** EXPIRED: the window passed with nothing (counted) received. */
export function expiredPage(view: PayerView): Omit<Page, "merchant"> {
  const received = view.units !== null && view.units.received > 0n;
  return {
    title: "Payment expired",
    body: html`<div class="mark muted" aria-hidden="true">!</div>
<h1 class="center">This payment has expired</h1>
<p class="sub center">The time to pay for this order of <strong>${view.amount}&nbsp;${view.amountCurrency}</strong> ran out. Please go back to the merchant to start a new payment.</p>
<div class="center">${statusPill(view.status)}</div>
${
  received
    ? notice(
        "warn",
        html`We received ${coinAmount(view.receivedAmount ?? "0", view.coin ?? "")} after the payment window closed. The merchant has it; contact them with the reference below.`,
      )
    : view.address
      ? notice(
          "info",
          "If you sent a payment just now, it is still detected for a while and this page will show it. Otherwise, contact the merchant with the reference below.",
        )
      : null
}`,
  };
}

/** FAILED: the window closed on an underpayment; what came in went to the merchant. */
export function failedPage(view: PayerView): Omit<Page, "merchant"> {
  const coin = view.coin ?? "";
  return {
    title: "Payment incomplete",
    body: html`<div class="mark bad" aria-hidden="true">&times;</div>
<h1 class="center">Payment incomplete</h1>
<p class="sub center">We received ${coinAmount(view.receivedAmount ?? "0", coin)} of the ${coinAmount(view.payAmount ?? "", coin)} due before the payment window closed.</p>
<div class="center">${statusPill(view.status)}</div>
${notice("warn", "The merchant has received what you sent. Contact them with the reference below to complete the order or to be refunded.")}`,
  };
}

/** An unknown invoice id: the same page whatever the reason, revealing nothing. */
export function notFoundPage(): Page {
  return {
    title: "Payment not found",
    body: html`<h1>Payment not found</h1>
<p class="sub">This payment link is not valid. Check the link you were given, or ask the merchant for a new one.</p>`,
  };
}

/** An unexpected failure: nothing about its cause reaches the payer. */
export function errorPage(message = "Something went wrong on our side. Please reload this page in a moment."): Page {
  return {
    title: "Payment page unavailable",
    body: html`<h1>Sorry, something went wrong</h1>
<p class="sub">${message}</p>`,
  };
}
