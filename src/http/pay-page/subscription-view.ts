import type { CurrencyCatalog } from "../../currencies";
import type { PayerSubscription } from "../../core/subscriptions/payer";
import type { InvoiceRecord } from "../../core/invoices/records";
import type { SubscriptionRecord } from "../../core/subscriptions/records";
import { padFraction } from "../../core/views/payer";
import { currentPeriodBounds } from "../../core/views/subscription";
import { formatDecimal } from "../../money";
import { html, type SafeHtml } from "../../html/escape";
import type { MessageKey, Translator } from "./i18n/index";
import type { Page } from "./layout";

/**
 * The payer's page of a subscription (GET /pay/subscription/:token): what it costs and how often,
 * its status, the period running, the payment due with a button to its hosted payment page, the
 * latest periods, and, when the merchant allows it, a plain form (a CSRF token, no JavaScript) that
 * cancels at the end of the period. Only what the payer needs: never the customer reference or
 * the metadata.
 */

/** A date as the payer reads it on every language's page: YYYY-MM-DD (UTC, as the periods are reckoned). */
const day = (at: number): string => new Date(at).toISOString().slice(0, 10);

function money(currencies: CurrencyCatalog, units: bigint, currency: string): string {
  const decimals = currencies.decimalsOf(currency) ?? 0;
  return `${padFraction(formatDecimal(units, decimals), decimals)} ${currency}`;
}

function price(t: Translator, subscription: SubscriptionRecord, amount: string): string {
  const { interval } = subscription;
  if (interval.unit === "day") return t.text("subEveryDays", { amount, days: interval.count });
  const key: MessageKey = interval.unit === "week" ? "subWeekly" : interval.unit === "month" ? "subMonthly" : "subYearly";
  return t.text(key, { amount });
}

function statusPill(t: Translator, subscription: SubscriptionRecord): SafeHtml {
  if (subscription.status === "cancelled") return html`<span class="pill muted" data-status="cancelled">${t.text("subCancelledStatus")}</span>`;
  if (subscription.status === "past_due") return html`<span class="pill bad" data-status="past_due">${t.text("subPastDue")}</span>`;
  return html`<span class="pill ok" data-status="active">${t.text("subActive")}</span>`;
}

function periodState(t: Translator, invoice: InvoiceRecord | null, paid: boolean): string {
  if (paid || invoice?.status === "PAID") return t.text("subPeriodPaid");
  if (invoice && (invoice.status === "PENDING" || invoice.status === "CONFIRMING" || invoice.status === "UNDER_PAID")) return t.text("subPeriodOpen");
  return t.text("subPeriodUnpaid");
}

/** What the page shows, and where its cancel form posts (with its CSRF token), or null when it offers none. */
export interface SubscriptionPageInput {
  loaded: PayerSubscription;
  cancel: { action: string; csrf: string } | null;
  /** A line above the card's content: the cancellation just made, or why a post was refused. */
  notice: { tone: "ok" | "error"; text: string } | null;
}

/** The payer's page of a subscription. */
export function subscriptionPage(t: Translator, currencies: CurrencyCatalog, input: SubscriptionPageInput): Omit<Page, "merchant"> {
  const { subscription, periods } = input.loaded;
  const amount = money(currencies, subscription.amount, subscription.amountCurrency);
  const bounds = currentPeriodBounds(subscription);
  const open = subscription.openInvoiceId === null ? null : (periods.find((entry) => entry.period.invoiceId === subscription.openInvoiceId) ?? null);
  const openInvoice =
    open?.invoice && (open.invoice.status === "PENDING" || open.invoice.status === "CONFIRMING" || open.invoice.status === "UNDER_PAID") ? open : null;
  const ending = subscription.status !== "cancelled" && subscription.cancelAtPeriodEnd && bounds ? bounds.end : null;
  const rows = periods.map(
    ({ period, invoice }) =>
      // The state first: the summary's values may break anywhere (addresses), a word must not.
      html`<dt data-period="${String(period.index)}">${periodState(t, invoice, period.paidAt !== null)}</dt><dd>${t.text("subPeriodRange", { start: day(period.start), end: day(period.end) })}</dd>`,
  );
  return {
    title: t.text("subTitle"),
    body: html`<h1>${t.text("subTitle")}</h1>
<p class="sub" data-price>${price(t, subscription, amount)}</p>
<div>${statusPill(t, subscription)}</div>
${input.notice ? html`<p class="notice ${input.notice.tone === "ok" ? "ok" : "error"}" role="status">${input.notice.text}</p>` : null}
${
  subscription.status === "cancelled"
    ? html`<p class="meta">${t.text("subOverText")}</p>`
    : html`<dl class="summary">
${subscription.trialEnd !== null && subscription.currentPeriod < 0 ? html`<dt>${t.text("subTrial", { date: day(subscription.trialEnd) })}</dt><dd></dd>` : null}
${bounds ? html`<dt>${t.text("subPeriod")}</dt><dd data-current-period>${t.text("subPeriodRange", { start: day(bounds.start), end: day(bounds.end) })}</dd>` : null}
${ending === null ? null : html`<dt>${t.text("subEnding", { date: day(ending) })}</dt><dd></dd>`}
</dl>
${
  openInvoice
    ? html`<span class="label field">${t.text("subDue")}</span>
<p class="amount" data-due>${money(currencies, openInvoice.period.amount, openInvoice.period.amountCurrency)}</p>
<a class="button block" href="${openInvoice.invoice!.paymentUrl}" data-pay>${t.text("subPay", { amount: money(currencies, openInvoice.period.amount, openInvoice.period.amountCurrency) })}</a>`
    : html`<p class="meta" data-nothing-due>${t.text("subNothingDue")}</p>`
}`
}
${
  rows.length > 0
    ? html`<span class="label field">${t.text("subHistory")}</span>
<dl class="summary" data-periods>${rows}</dl>`
    : null
}
${
  input.cancel
    ? html`<form method="post" action="${input.cancel.action}">
<input type="hidden" name="csrf" value="${input.cancel.csrf}">
<button class="button block secondary" type="submit" data-cancel>${t.text("subCancel")}</button>
</form>
<p class="meta">${t.text("subCancelNote")}</p>`
    : null
}`,
  };
}

/** A link that leads to no subscription: one sentence, nothing more. */
export function subscriptionNotFoundPage(t: Translator): Page {
  return {
    title: t.text("subNotFoundTitle"),
    body: html`<h1>${t.text("subNotFoundTitle")}</h1>
<p class="sub">${t.text("subNotFoundText")}</p>`,
  };
}
