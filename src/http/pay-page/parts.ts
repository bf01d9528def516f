import type { InvoiceStatus } from "../../core/invoices/records";
import { html, type SafeHtml } from "../../html/escape";
import type { MessageKey, Translator } from "./i18n/index";

/**
 * The URLs one invoice's page links to, built from the mount path (`req.baseUrl`). `page` and
 * `method` carry `?lang=` when the payer picked a language on the page, so the choice survives
 * the coin form and its redirect; `path` is the page without it (the language switch's base).
 */
export interface PageLinks {
  path: string;
  page: string;
  method: string;
  status: string;
}

const STATUS_LABELS: Readonly<Record<InvoiceStatus, { text: MessageKey; tone: string }>> = {
  PENDING: { text: "statusPending", tone: "" },
  CONFIRMING: { text: "statusConfirming", tone: "warn" },
  UNDER_PAID: { text: "statusUnderPaid", tone: "warn" },
  PAID: { text: "statusPaid", tone: "ok" },
  EXPIRED: { text: "statusExpired", tone: "muted" },
  FAILED: { text: "statusFailed", tone: "bad" },
};

/** The status badge; `data-status` (the API's status) and `data-status-text` let tests and scripts read it. */
export function statusPill(t: Translator, status: InvoiceStatus): SafeHtml {
  const label = STATUS_LABELS[status];
  return html`<p><span class="pill ${label.tone}" data-status-text data-status-code="${status}" role="status">${t.text(label.text)}</span></p>`;
}

/** "2026-03-01 12:30 UTC": an unambiguous time that needs no script and no locale. */
export function formatUtc(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** Time left (a countdown once the script runs) and the absolute expiry (always). */
export function expiryTimer(t: Translator, expiresAt: number, secondsLeft: number): SafeHtml {
  const time = html`<time datetime="${new Date(expiresAt).toISOString()}">${formatUtc(expiresAt)}</time>`;
  return html`<div class="timer" data-seconds-left="${secondsLeft}" data-expired-text="${t.text("statusExpired")}">
<span data-countdown-box hidden><span class="label">${t.text("timeLeft")}</span><span class="countdown" data-countdown></span></span>
<span class="meta">${t.html("expires", { time })}</span>
</div>`;
}

/** A boxed message. */
export function notice(tone: "info" | "warn" | "error" | "ok", content: SafeHtml | string): SafeHtml {
  return html`<div class="notice ${tone}"${tone === "error" ? html` role="alert"` : null}>${content}</div>`;
}

/**
 * For payers without JavaScript: how to see the latest status. The script hides it (rather
 * than <noscript>, which also fails to show when a browser blocks scripts some other way).
 */
export function refreshHint(t: Translator, pageUrl: string): SafeHtml {
  return html`<p class="meta" data-nojs>${t.html("refreshHint", { refresh: html`<a href="${pageUrl}">${t.text("refresh")}</a>` })}</p>`;
}

/** An amount with its coin, e.g. `25.5 USDT`. */
export function coinAmount(amount: string, coin: string): SafeHtml {
  return html`${amount}&nbsp;${coin}`;
}
