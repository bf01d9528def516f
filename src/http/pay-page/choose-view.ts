import type { PayerOption, PayerView } from "../../core/views/payer";
import { html } from "./escape";
import type { Page } from "./layout";
import { expiryTimer, notice, statusPill, type PageLinks } from "./parts";

/**
 * Hosted mode before a coin is chosen: one small form per coin and network, so a single
 * click (or tap, or Enter) chooses, with or without JavaScript.
 */
export function choosePage(view: PayerView, options: readonly PayerOption[], links: PageLinks): Omit<Page, "merchant"> {
  const list = options.map(
    (option) => html`<li><form method="post" action="${links.method}">
<input type="hidden" name="coin" value="${option.coin}"><input type="hidden" name="network" value="${option.network}">
<button class="option" type="submit" data-option="${option.coin}/${option.network}"><span><span class="coin">${option.coinName} (${option.coin})</span><span class="net">${option.networkName} network</span></span><span class="go" aria-hidden="true">&rsaquo;</span></button>
</form></li>`,
  );
  return {
    title: `Pay ${view.amount} ${view.amountCurrency}`,
    body: html`<h1>Choose how to pay</h1>
<p class="sub">Order total <strong>${view.amount}&nbsp;${view.amountCurrency}</strong></p>
${statusPill(view.status)}
${options.length > 0 ? html`<ul class="options">${list}</ul>` : notice("warn", "No payment method is available for this payment right now. Please contact the merchant.")}
<p class="meta">The exchange rate is locked and a deposit address is created when you choose.</p>
${expiryTimer(view.expiresAt, view.secondsLeft)}`,
  };
}
