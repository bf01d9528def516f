import type { CurrencyCatalog } from "../../currencies";
import { padFraction } from "../../core/views/payer";
import type { PaymentLinkRecord } from "../../core/payment-links/records";
import { formatDecimal } from "../../money";
import { html } from "../../html/escape";
import type { Translator } from "./i18n/index";
import type { Page } from "./layout";

/**
 * The page of a payment link (GET /pay/link/:id): what the payer is about to pay and one
 * button, a plain form post, that creates the payment. Showing it creates nothing, so crawlers,
 * link checkers and chat previews that fetch the link leave no invoice behind.
 * Only what the payer needs is shown: never the link's metadata.
 */
export function paymentLinkPage(t: Translator, link: PaymentLinkRecord, currencies: CurrencyCatalog, action: string): Omit<Page, "merchant"> {
  const decimals = currencies.decimalsOf(link.amountCurrency) ?? 0;
  const amount = padFraction(formatDecimal(link.amount, decimals), decimals);
  const coins = link.acceptedCoins?.map((symbol) => `${currencies.crypto(symbol)?.name ?? symbol} (${symbol})`) ?? null;
  return {
    title: t.text("titlePay", { amount: `${amount} ${link.amountCurrency}` }),
    body: html`<h1>${t.html("titlePay", { amount: html`${amount}&nbsp;${link.amountCurrency}` })}</h1>
<p class="sub">${coins ? t.text("linkIn", { coins: coins.join(", ") }) : t.text("linkAny")}</p>
<form method="post" action="${action}">
<button class="button block" type="submit" data-start-payment>${t.text("linkContinue")}</button>
</form>
<p class="meta">${t.text("linkNote")}</p>`,
  };
}

/** A link that cannot be paid (unknown, deactivated, or payments unavailable): one sentence, nothing more. */
export function paymentLinkRefusalPage(title: string, text: string): Page {
  return {
    title,
    body: html`<h1>${title}</h1>
<p class="sub">${text}</p>`,
  };
}
