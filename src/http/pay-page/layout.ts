import type { Response } from "express";
import { PAGE_CSS, PAGE_SCRIPT } from "./assets";
import { brandingCss, logoOrigin, type PayPageBranding } from "./branding";
import { html, trustedHtml, type SafeHtml } from "../../html/escape";
import { newNonce, setCommonHeaders } from "../../html/headers";
import { LANGUAGE_NAMES, LANGUAGES, type Translator } from "./i18n/index";

/**
 * Headers of every hosted-page response: a CSP that allows only our own nonce'd inline style
 * and script, same-origin fetches and form posts, and images from ourselves and the logo's
 * origin alone; no framing (clickjacking on a payment page), no referrer to other sites (the
 * URL is the invoice's capability; our own form posts carry their origin, which the coin choice
 * checks) and no caching (the state changes). The language follows Accept-Language: Vary says so.
 */
export function setPageHeaders(res: Response, nonce: string, logoOrigin: string | null = null): void {
  res.setHeader(
    "Content-Security-Policy",
    [
      "default-src 'self'",
      `img-src 'self' data:${logoOrigin ? ` ${logoOrigin}` : ""}`,
      `style-src 'nonce-${nonce}'`,
      `script-src 'nonce-${nonce}'`,
      "connect-src 'self'",
      "form-action 'self'",
      "base-uri 'none'",
      "object-src 'none'",
      "frame-ancestors 'none'",
    ].join("; "),
  );
  res.setHeader("Vary", "Accept-Language");
  setCommonHeaders(res);
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
  poll?: { statusUrl: string; status: string; received: string; coin: string; confirmations: string } | null;
}

/** How a page is framed: its language, where the language switch points, the merchant's branding. */
export interface Frame {
  t: Translator;
  /** The GET path the language switch links to (with `?lang=`); null shows no switch (a page answering a POST to another path). */
  switchPath: string | null;
  branding: PayPageBranding;
}

/** The language switch: plain links, so it works without JavaScript; each name in its own language. */
function languageSwitch(frame: Frame): SafeHtml | null {
  if (frame.switchPath === null) return null;
  const links = LANGUAGES.map(
    (language) =>
      html`<li><a href="${frame.switchPath}?lang=${language}" lang="${language}" hreflang="${language}"${language === frame.t.language ? html` aria-current="true"` : null}>${LANGUAGE_NAMES[language]}</a></li>`,
  );
  return html`<nav aria-label="${frame.t.text("language")}"><ul class="langs">${links}</ul></nav>`;
}

/** Renders a whole HTML document and sends it with the page headers. */
export function sendPage(res: Response, status: number, page: Page, frame: Frame): void {
  const nonce = newNonce();
  const { t, branding } = frame;
  setPageHeaders(res, nonce, logoOrigin(branding));
  const poll = page.poll;
  const merchant = branding.merchantName ?? page.merchant ?? null;
  const accent = brandingCss(branding);
  const document = html`<!doctype html>
<html lang="${t.language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="same-origin">
<link rel="icon" href="data:,">
${page.refreshSeconds ? html`<noscript><meta http-equiv="refresh" content="${page.refreshSeconds}"></noscript>` : null}
<title>${page.title}</title>
<style nonce="${nonce}">${trustedHtml(PAGE_CSS)}${trustedHtml(accent)}</style>
</head>
<body>
<main${poll ? html` data-status-url="${poll.statusUrl}" data-status="${poll.status}" data-received="${poll.received}" data-coin="${poll.coin}" data-confirmations="${poll.confirmations}"` : null}>
${
  merchant || branding.logoUrl || page.testMode
    ? html`<div class="top"><span class="brand">${branding.logoUrl ? html`<img class="logo" src="${branding.logoUrl}" alt="${merchant ? "" : t.text("merchantLogo")}" data-logo>` : null}<span class="merchant">${merchant ?? ""}</span></span>${page.testMode ? html`<span class="badge" title="${t.text("testModeHint")}">${t.text("testMode")}</span>` : null}</div>`
    : null
}
<div class="card">
${page.body}
</div>
${page.reference ? html`<p class="foot">${t.text("reference", { id: page.reference })}</p>` : null}
${languageSwitch(frame)}
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
