import type { InvoiceStatus } from "../../core/ports/records";
import { html, type SafeHtml } from "./escape";

/** The URLs one invoice's page links to, built from the mount path (`req.baseUrl`). */
export interface PageLinks {
  page: string;
  method: string;
  status: string;
}

const STATUS_LABELS: Readonly<Record<InvoiceStatus, { text: string; tone: string }>> = {
  PENDING: { text: "Waiting for payment", tone: "" },
  CONFIRMING: { text: "Confirming payment", tone: "warn" },
  UNDER_PAID: { text: "Partially paid", tone: "warn" },
  PAID: { text: "Paid", tone: "ok" },
  EXPIRED: { text: "Expired", tone: "muted" },
  FAILED: { text: "Incomplete", tone: "bad" },
};

/** The status badge; `data-status-text` lets tests and scripts read it. */
export function statusPill(status: InvoiceStatus): SafeHtml {
  const label = STATUS_LABELS[status];
  return html`<p><span class="pill ${label.tone}" data-status-text role="status">${label.text}</span></p>`;
}

/** "2026-03-01 12:30 UTC": an unambiguous time that needs no script and no locale. */
export function formatUtc(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** Time left (a countdown once the script runs) and the absolute expiry (always). */
export function expiryTimer(expiresAt: number, secondsLeft: number): SafeHtml {
  return html`<div class="timer" data-seconds-left="${secondsLeft}">
<span data-countdown-box hidden><span class="label">Time left</span><span class="countdown" data-countdown></span></span>
<span class="meta">Expires <time datetime="${new Date(expiresAt).toISOString()}">${formatUtc(expiresAt)}</time></span>
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
export function refreshHint(pageUrl: string): SafeHtml {
  return html`<p class="meta" data-nojs>The status shown is as of loading this page. <a href="${pageUrl}">Refresh</a> to see the latest.</p>`;
}

/** An amount with its coin, e.g. `25.5 USDT`. */
export function coinAmount(amount: string, coin: string): SafeHtml {
  return html`${amount}&nbsp;${coin}`;
}
