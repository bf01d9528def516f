import type { PayerView } from "../../core/views/payer";
import { html } from "../../html/escape";
import type { Translator } from "./i18n/index";
import type { Page } from "./layout";
import { coinAmount, notice, statusPill } from "./parts";
import { overpaidNotice } from "./pay-view";

/** The order total in bold, as the outcome pages name it. */
const total = (view: PayerView) => html`<strong>${view.amount}&nbsp;${view.amountCurrency}</strong>`;

/** PAID: a receipt, the overpayment if any, and the way back to the merchant. */
export function paidPage(t: Translator, view: PayerView): Omit<Page, "merchant"> {
  const coin = view.coin ?? "";
  return {
    title: t.text("paidTitle"),
    body: html`<div class="mark ok" aria-hidden="true">&#10003;</div>
<h1 class="center">${t.text("paidTitle")}</h1>
<p class="sub center">${t.html("paidText", { amount: total(view) })}</p>
<div class="center">${statusPill(t, view.status)}</div>
<dl class="summary">
<dt>${t.text("received")}</dt><dd data-received>${coinAmount(view.receivedAmount ?? "0", coin)}</dd>
<dt>${t.text("network")}</dt><dd>${view.networkName}</dd>
</dl>
${overpaidNotice(t, view)}
${view.returnUrl ? html`<a class="button block" href="${view.returnUrl}" rel="noreferrer" data-return-link>${t.text("returnToMerchant")}</a>` : null}`,
  };
}

/** EXPIRED: the window passed with nothing (counted) received. */
export function expiredPage(t: Translator, view: PayerView): Omit<Page, "merchant"> {
  const received = view.units !== null && view.units.received > 0n;
  return {
    title: t.text("expiredTitle"),
    body: html`<div class="mark muted" aria-hidden="true">!</div>
<h1 class="center">${t.text("expiredHeading")}</h1>
<p class="sub center">${t.html("expiredText", { amount: total(view) })}</p>
<div class="center">${statusPill(t, view.status)}</div>
${
  received
    ? notice("warn", t.html("expiredLate", { amount: coinAmount(view.receivedAmount ?? "0", view.coin ?? "") }))
    : view.address
      ? notice("info", t.text("expiredMaybe"))
      : null
}`,
  };
}

/** FAILED: the window closed on an underpayment; what came in went to the merchant. */
export function failedPage(t: Translator, view: PayerView): Omit<Page, "merchant"> {
  const coin = view.coin ?? "";
  return {
    title: t.text("failedTitle"),
    body: html`<div class="mark bad" aria-hidden="true">&times;</div>
<h1 class="center">${t.text("failedTitle")}</h1>
<p class="sub center">${t.html("failedText", { received: coinAmount(view.receivedAmount ?? "0", coin), due: coinAmount(view.payAmount ?? "", coin) })}</p>
<div class="center">${statusPill(t, view.status)}</div>
${notice("warn", t.text("failedNext"))}`,
  };
}

/** An unknown invoice id: the same page whatever the reason, revealing nothing. */
export function notFoundPage(t: Translator): Page {
  return {
    title: t.text("notFoundTitle"),
    body: html`<h1>${t.text("notFoundTitle")}</h1>
<p class="sub">${t.text("notFoundText")}</p>`,
  };
}

/** An unexpected failure: nothing about its cause reaches the payer. */
export function errorPage(t: Translator, message = t.text("errorText")): Page {
  return {
    title: t.text("errorTitle"),
    body: html`<h1>${t.text("errorHeading")}</h1>
<p class="sub">${message}</p>`,
  };
}
