import type { PayerView } from "../../core/views/payer";
import { html, type SafeHtml } from "../../html/escape";
import type { Translator } from "./i18n/index";
import type { Page } from "./layout";
import { coinAmount, expiryTimer, formatUtc, notice, refreshHint, statusPill, type PageLinks } from "./parts";

/** The QR code (of the wallet link, or of the bare address) and the wallet link itself when the coin has one. */
export interface WalletTarget {
  qr: SafeHtml;
  uri: string | null;
}

/**
 * A coin is chosen (or fixed, whitelabel) and the invoice is open: what to send, where, the QR
 * code, the wallet link and the time left. Once a deposit covering the amount is seen, only the
 * wait for confirmations is shown, counted as they come.
 */
export function payPage(t: Translator, view: PayerView, links: PageLinks, wallet: WalletTarget | null): Omit<Page, "merchant"> {
  const coin = view.coin ?? "";
  const title = t.text("titlePay", { amount: `${view.amount} ${view.amountCurrency}` });
  const heading = html`<h1>${t.text("payWith", { coin: `${view.coinName} (${coin})` })}</h1>
<p class="sub">${t.html("orderTotal", { amount: html`<strong>${view.amount}&nbsp;${view.amountCurrency}</strong>` })}</p>
${statusPill(t, view.status)}`;

  if (view.awaitingConfirmations && !view.partiallyPaid) {
    return {
      title,
      refreshSeconds: 20,
      body: html`${heading}
${notice("info", html`<strong>${t.text("detectedTitle")}</strong> ${t.html("detectedText", { amount: coinAmount(view.receivedAmount ?? "0", coin), network: view.networkName })}`)}
${confirmationsLine(t, view)}
${overpaidNotice(t, view)}
<dl class="summary"><dt>${t.text("amountDue")}</dt><dd>${coinAmount(view.payAmount ?? "", coin)}</dd><dt>${t.text("sentTo")}</dt><dd><code>${view.address}</code></dd></dl>
${rateLine(t, view)}
${refreshHint(t, links.page)}`,
    };
  }

  const partial = view.partiallyPaid;
  const toSend = (partial ? view.remaining : view.payAmount) ?? "";
  const amounts = {
    received: coinAmount(view.receivedAmount ?? "0", coin),
    due: coinAmount(view.payAmount ?? "", coin),
    remaining: coinAmount(view.remaining ?? "", coin),
  };
  return {
    title,
    refreshSeconds: 20,
    body: html`${heading}
${partial ? notice("warn", html`<strong>${t.text("partialTitle")}</strong> ${t.html(view.awaitingConfirmations ? "partialTextWaiting" : "partialText", amounts)} <span data-next>${t.text("partialNext")}</span>`) : null}
${confirmationsLine(t, view)}
<div class="field">
<span class="label" id="pay-amount-label">${t.text(partial ? "remainingToSend" : "amountToSend")}</span>
<div class="amount-row"><div class="amount" data-amount><span id="pay-amount">${toSend}</span> <small>${coin}</small></div>${copyButton(t, "pay-amount", "copyAmount")}</div>
${
  view.fee !== null
    ? html`<p class="meta" data-fee>${partial ? t.html("feeIncludedPartial", { total: coinAmount(view.payAmount ?? "", coin), fee: coinAmount(view.fee, coin) }) : t.html("feeIncluded", { fee: coinAmount(view.fee, coin) })}</p>`
    : null
}
</div>
<div class="field">
<span class="label">${t.text("network")}</span>
<div>${view.networkName}</div>
<p class="meta">${t.text("networkWarning", { coin, network: view.networkName ?? "" })}</p>
</div>
${
  wallet
    ? html`<div class="qr" role="img" aria-label="${wallet.uri ? t.text("qrLabel", { amount: `${toSend} ${coin}`, address: view.address ?? "" }) : t.text("qrLabelAddress", { address: view.address ?? "" })}" data-qr>${wallet.qr}</div>`
    : null
}
${wallet?.uri ? html`<p class="wallet"><a class="button" href="${wallet.uri}" data-wallet-link>${t.text("openInWallet")}</a></p><p class="meta center">${t.text("walletHint")}</p>` : null}
<div class="field">
<span class="label">${t.text("depositAddress")}</span>
<div class="copy-row"><code class="address" id="pay-address" data-address>${view.address}</code>${copyButton(t, "pay-address", "copyAddress")}</div>
</div>
${rateLine(t, view)}
${expiryTimer(t, view.expiresAt, view.secondsLeft)}
${refreshHint(t, links.page)}`,
  };
}

/**
 * A copy button, hidden until the script shows it: without JavaScript the value is selectable
 * text. Its visible word is "Copy"; its accessible name says what it copies.
 */
function copyButton(t: Translator, target: string, name: "copyAmount" | "copyAddress"): SafeHtml {
  return html`<button type="button" class="secondary" data-copy="${target}" data-copied="${t.text("copied")}" aria-label="${t.text(name)}" hidden>${t.text("copy")}</button>`;
}

/** "Confirmations: 2 of 12" while a deposit that counts waits for them. */
function confirmationsLine(t: Translator, view: PayerView): SafeHtml | null {
  if (view.confirmations === null) return null;
  const { count, required } = view.confirmations;
  return html`<p class="meta confirmations" data-confirmations>${t.text("confirmations", { count, required })}</p>`;
}

/** The locked exchange rate and when its price was observed: what the coin amount was worked out from. */
function rateLine(t: Translator, view: PayerView): SafeHtml | null {
  if (view.rate === null || view.coin === null) return null;
  const { price, currency, at } = view.rate;
  return html`<div class="field" data-rate>
<span class="label">${t.text("exchangeRate")}</span>
<div>${t.text("rateLine", { coin: view.coin, price, currency })}</div>
${at !== null ? html`<p class="meta">${t.html("rateAsOf", { time: html`<time datetime="${new Date(at).toISOString()}">${formatUtc(at)}</time>` })}</p>` : null}
</div>`;
}

/** Shown when more than payAmount came in: the order is paid, the excess is with the merchant, who can refund it. */
export function overpaidNotice(t: Translator, view: PayerView): SafeHtml | null {
  if (view.overpaid === null) return null;
  return notice(
    "warn",
    html`<span data-overpaid><strong>${t.text("overpaidTitle")}</strong> ${t.html("overpaidText", { amount: coinAmount(view.overpaid, view.coin ?? "") })}</span>`,
  );
}
