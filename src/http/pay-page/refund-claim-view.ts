import type { CurrencyCatalog } from "../../currencies";
import type { PayoutRecord } from "../../core/payouts/records";
import { formatDecimal, RATE_DECIMALS } from "../../money";
import { html, type SafeHtml } from "../../html/escape";
import type { Translator } from "./i18n/index";
import type { Page } from "./layout";
import { formatUtc, notice } from "./parts";

/** What the payer typed, kept across a refused step so nothing is lost. */
export interface ClaimValues {
  /** The coin chosen: the refund's own, or one of the link's other coins. */
  coin: string;
  network: string;
  address: string;
}

/** A quote as the page shows it: decimal strings. */
export interface ShownQuote {
  coin: string;
  network: string;
  /** The coin amount the payer receives. */
  amount: string;
  /** "1 BTC = 60000 USD" when the amount was converted (from fiat, or from the refund's coin to another); null otherwise. */
  rate: string | null;
}

const coinText = (currencies: CurrencyCatalog, units: bigint, coin: string) => `${formatDecimal(units, currencies.decimalsOf(coin) ?? 0)} ${coin}`;

/** The amount the link is for, as the payer reads it: the fiat amount when fixed in fiat, else the coin amount. */
function fixedAmount(currencies: CurrencyCatalog, refund: PayoutRecord): string {
  const fiat = refund.claim!.fiat;
  return fiat ? coinText(currencies, fiat.amount, fiat.currency) : coinText(currencies, refund.amount, refund.coin);
}

/** "1 BTC = 60000 USD", "1 USDC = 0.999 USDT": the rate an amount was converted at (price of 1 of the coin paid). */
export function rateText(refund: PayoutRecord, quote: { coin: string; rate: bigint }): string {
  return `1 ${quote.coin} = ${formatDecimal(quote.rate, RATE_DECIMALS)} ${refund.claim!.fiat?.currency ?? refund.coin}`;
}

/**
 * The choice of coin and network: with other coins offered, one select of "coin on network"
 * (field `choice`, "USDC:ETH": no script needed to keep the two consistent); else a select of
 * the networks when the merchant offers several, a hidden field when one.
 */
function networkField(t: Translator, refund: PayoutRecord, values: ClaimValues): SafeHtml {
  const claim = refund.claim!;
  if (claim.coins.length > 0) {
    const pairs = [{ coin: refund.coin, networks: claim.networks }, ...claim.coins].flatMap((entry) =>
      entry.networks.map((network) => ({ coin: entry.coin, network })),
    );
    const options = pairs.map(
      (pair) =>
        html`<option value="${pair.coin}:${pair.network}"${pair.coin === values.coin && pair.network === values.network ? html` selected` : null}>${t.text("refundCoinOn", pair)}</option>`,
    );
    return html`<div class="field"><label class="label" for="claim-network">${t.text("refundCoinNetwork")}</label>
<select class="input" id="claim-network" name="choice" data-claim-network>${options}</select></div>`;
  }
  const chosen = values.network;
  const networks = claim.networks;
  if (networks.length === 1) return html`<input type="hidden" name="network" value="${networks[0]}">`;
  const options = networks.map((network) => html`<option value="${network}"${network === chosen ? html` selected` : null}>${network}</option>`);
  return html`<div class="field"><label class="label" for="claim-network">${t.text("refundNetwork")}</label>
<select class="input" id="claim-network" name="network" data-claim-network>${options}</select></div>`;
}

/**
 * The claim form: the amount, the network (when there is a choice) and the payer's address.
 * `estimate` is today's coin amount of a fiat refund (null when no price could be had); `error`
 * is shown above the address, whose field keeps what was typed.
 */
export function claimFormPage(
  t: Translator,
  currencies: CurrencyCatalog,
  refund: PayoutRecord,
  options: { action: string; csrf: string; values: ClaimValues; estimate: string | null; error: string | null },
): Omit<Page, "merchant"> {
  const amount = fixedAmount(currencies, refund);
  const { values, error } = options;
  return {
    title: t.text("refundTitle"),
    body: html`<h1>${t.text("refundTitle")}</h1>
<p class="amount" data-claim-amount>${t.text("refundOf", { amount })}</p>
${options.estimate ? html`<p class="meta" data-claim-estimate>${t.text("refundFiat", { coin: values.coin, amount: options.estimate })}</p>` : null}
${error ? notice("error", error) : null}
<form method="post" action="${options.action}" data-claim-form>
<input type="hidden" name="step" value="review"><input type="hidden" name="csrf" value="${options.csrf}">
${networkField(t, refund, values)}
<div class="field"><label class="label" for="claim-address">${t.text("refundAddress", { coin: values.coin })}</label>
<input class="input" id="claim-address" name="address" value="${values.address}" autocomplete="off" autocapitalize="off" spellcheck="false" maxlength="256" required aria-describedby="claim-address-hint"${error ? html` aria-invalid="true"` : null} data-claim-address></div>
<p class="meta" id="claim-address-hint">${t.text("refundAddressHint")}</p>
<button class="button block" type="submit" data-claim-continue>${t.text("refundContinue")}</button>
</form>
<p class="meta">${t.text("refundExpires", { time: formatUtc(refund.claim!.expiresAt) })}</p>`,
  };
}

/**
 * The last step: what the payer receives (converted now for a fiat amount), on which network,
 * at which address, and one button that claims it. The amount confirmed travels with the form:
 * a claim at another rate is shown again rather than sent.
 */
export function claimReviewPage(
  t: Translator,
  options: { action: string; csrf: string; values: ClaimValues; quote: ShownQuote; rateChanged: boolean },
): Omit<Page, "merchant"> {
  const { quote, values } = options;
  return {
    title: t.text("refundReviewHeading"),
    body: html`<h1>${t.text("refundReviewHeading")}</h1>
${options.rateChanged ? notice("warn", t.text("refundRateChanged")) : null}
<dl class="summary">
<dt>${t.text("refundReceive")}</dt><dd data-claim-receive>${quote.amount}&nbsp;${quote.coin}</dd>
<dt>${t.text("refundNetwork")}</dt><dd data-claim-chain>${quote.network}</dd>
<dt>${t.text("refundTo")}</dt><dd data-claim-to>${values.address}</dd>
${quote.rate ? html`<dt>${t.text("refundRate")}</dt><dd data-claim-rate>${quote.rate}</dd>` : null}
</dl>
<p class="meta">${t.text("refundFeeNote")}</p>
<form method="post" action="${options.action}">
<input type="hidden" name="step" value="confirm"><input type="hidden" name="csrf" value="${options.csrf}"><input type="hidden" name="coin" value="${values.coin}"><input type="hidden" name="network" value="${values.network}"><input type="hidden" name="address" value="${values.address}"><input type="hidden" name="amount" value="${quote.amount}">
<button class="button block" type="submit" data-claim-confirm>${t.text("refundConfirm")}</button>
</form>
<form method="post" action="${options.action}" class="center">
<input type="hidden" name="step" value="edit"><input type="hidden" name="csrf" value="${options.csrf}"><input type="hidden" name="coin" value="${values.coin}"><input type="hidden" name="network" value="${values.network}"><input type="hidden" name="address" value="${values.address}">
<button class="secondary" type="submit" data-claim-change>${t.text("refundChange")}</button>
</form>`,
  };
}

/** The page of a link past its claim: on its way, awaiting approval, sent, failed, or closed (cancelled, expired). */
export function claimStatusPage(
  t: Translator,
  currencies: CurrencyCatalog,
  refund: PayoutRecord,
  options: { expired: boolean; message: string | null },
): Omit<Page, "merchant"> {
  const amount = coinText(currencies, refund.amount, refund.coin);
  const extra = options.message ? notice("info", options.message) : null;
  const outcome = (mark: "ok" | "bad" | "muted", symbol: string, heading: string, text: string) => ({
    title: heading,
    body: html`<div class="mark ${mark}" aria-hidden="true">${symbol}</div>
<h1 class="center" data-claim-status="${options.expired ? "EXPIRED" : refund.status}">${heading}</h1>
<p class="sub center">${text}</p>
${extra}`,
  });
  if (options.expired || refund.status === "EXPIRED") return outcome("muted", "!", t.text("refundClosedTitle"), t.text("refundExpiredText"));
  if (refund.status === "CANCELLED") return outcome("muted", "!", t.text("refundClosedTitle"), t.text("refundCancelledText"));
  if (refund.status === "COMPLETED") return outcome("ok", "✓", t.text("refundDoneHeading"), t.text("refundDoneText", { amount }));
  if (refund.status === "FAILED" || refund.status === "REJECTED") return outcome("bad", "!", t.text("refundFailedHeading"), t.text("refundFailedText"));
  if (refund.status === "AWAITING_APPROVAL") return outcome("ok", "✓", t.text("refundSentHeading"), t.text("refundHeldText", { amount }));
  return outcome("ok", "✓", t.text("refundSentHeading"), t.text("refundSentText", { amount }));
}

/** A link that names no claim (unknown refund, wrong secret): one sentence, nothing about why. */
export function claimNotFoundPage(t: Translator): Page {
  return {
    title: t.text("refundNotFoundTitle"),
    body: html`<h1>${t.text("refundNotFoundTitle")}</h1>
<p class="sub">${t.text("refundNotFoundText")}</p>`,
  };
}
