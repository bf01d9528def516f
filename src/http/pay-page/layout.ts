import { randomBytes } from "node:crypto";
import type { Response } from "express";
import { PAGE_CSS, PAGE_SCRIPT } from "./assets";
import { html, trustedHtml, type SafeHtml } from "./escape";

/** A fresh CSP nonce for one response. */
export function newNonce(): string {
  return randomBytes(16).toString("base64");
}

/**
 * Headers of every hosted-page response: a CSP that allows only our own nonce'd inline style
 * and script, same-origin fetches and form posts; no framing (clickjacking on a payment page),
 * no referrer to other sites (the URL is the invoice's capability; our own form posts carry
 * their origin, which the coin choice checks) and no caching (the state changes).
 */
export function setPageHeaders(res: Response, nonce: string): void {
  res.setHeader(
    "Content-Security-Policy",
    [
      "default-src 'self'",
      "img-src 'self' data:",
      `style-src 'nonce-${nonce}'`,
      `script-src 'nonce-${nonce}'`,
      "connect-src 'self'",
      "form-action 'self'",
      "base-uri 'none'",
      "object-src 'none'",
      "frame-ancestors 'none'",
    ].join("; "),
  );
  setCommonHeaders(res);
}

/** The headers the public status JSON shares with the page. */
export function setCommonHeaders(res: Response): void {
  res.setHeader("X-Frame-Options", "DENY");
  res.setHeader("Referrer-Policy", "same-origin");
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("X-Content-Type-Options", "nosniff");
}

/** What one page is made of. */
export interface Page {
  title: string;
  /** The card's content. */
  body: SafeHtml;
  /** Shown above the card (the merchant's name); optional. */
  merchant?: string | null;
  testMode?: boolean;
  /** Invoice id shown under the card, for support. */
  reference?: string | null;
  /** Without JavaScript, reload every so many seconds (the page states that change). */
  refreshSeconds?: number;
  /** Attributes for the polling script; absent on pages that do not change. */
  poll?: { statusUrl: string; status: string; received: string; coin: string } | null;
}

/** Renders a whole HTML document and sends it with the page headers. */
export function sendPage(res: Response, status: number, page: Page): void {
  const nonce = newNonce();
  setPageHeaders(res, nonce);
  const poll = page.poll;
  const document = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="same-origin">
<link rel="icon" href="data:,">
${page.refreshSeconds ? html`<noscript><meta http-equiv="refresh" content="${page.refreshSeconds}"></noscript>` : null}
<title>${page.title}</title>
<style nonce="${nonce}">${trustedHtml(PAGE_CSS)}</style>
</head>
<body>
<main${poll ? html` data-status-url="${poll.statusUrl}" data-status="${poll.status}" data-received="${poll.received}" data-coin="${poll.coin}"` : null}>
${page.merchant || page.testMode ? html`<div class="top"><span class="merchant">${page.merchant ?? ""}</span>${page.testMode ? html`<span class="badge" title="Sandbox: no real funds move">Test mode</span>` : null}</div>` : null}
<div class="card">
${page.body}
</div>
${page.reference ? html`<p class="foot">Reference ${page.reference}</p>` : null}
</main>
<script nonce="${nonce}">${trustedHtml(PAGE_SCRIPT)}</script>
</body>
</html>
`;
  const text = document.value;
  res.statusCode = status;
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text); // Node drops the body of a HEAD answer itself
}
