import type { PayerOption, PayerView } from "../../core/views/payer";
import { html } from "../../html/escape";
import type { Translator } from "./i18n/index";
import type { Page } from "./layout";
import { expiryTimer, notice, statusPill, type PageLinks } from "./parts";

/**
 * Hosted mode before a coin is chosen: one small form per coin and network, so a single
 * click (or tap, or Enter) chooses, with or without JavaScript.
 */
export function choosePage(t: Translator, view: PayerView, options: readonly PayerOption[], links: PageLinks): Omit<Page, "merchant"> {
  const list = options.map(
    (option) => html`<li><form method="post" action="${links.method}">
<input type="hidden" name="coin" value="${option.coin}"><input type="hidden" name="network" value="${option.network}">
<button class="option" type="submit" data-option="${option.coin}/${option.network}"><span><span class="coin">${option.coinName} (${option.coin})</span><span class="net">${t.text("networkOf", { network: option.networkName })}</span></span><span class="go" aria-hidden="true">&rsaquo;</span></button>
</form></li>`,
  );
  return {
    title: t.text("titlePay", { amount: `${view.amount} ${view.amountCurrency}` }),
    body: html`<h1>${t.text("chooseHeading")}</h1>
<p class="sub">${t.html("orderTotal", { amount: html`<strong>${view.amount}&nbsp;${view.amountCurrency}</strong>` })}</p>
${statusPill(t, view.status)}
${options.length > 0 ? html`<ul class="options">${list}</ul>` : notice("warn", t.text("noOptions"))}
<p class="meta">${t.text("chooseNote")}</p>
${expiryTimer(t, view.expiresAt, view.secondsLeft)}`,
  };
}
