import type { Response } from "express";
import { html, trustedHtml, type SafeHtml } from "../html/escape";
import { newNonce, setCommonHeaders } from "../html/headers";
import type { DashboardUser } from "./options";
import { DASHBOARD_CSS } from "./styles";

/**
 * Headers of every dashboard response: only our nonce'd inline style may apply and no script
 * at all runs (the pages need none), forms post to this origin only, and nothing may frame the
 * page (CSP frame-ancestors for current browsers, X-Frame-Options for old ones). Never cached:
 * the pages show money and keys.
 */
export function setDashboardHeaders(res: Response, nonce: string): void {
  res.setHeader(
    "Content-Security-Policy",
    [
      "default-src 'none'",
      "img-src 'self' data:",
      `style-src 'nonce-${nonce}'`,
      `script-src 'nonce-${nonce}'`,
      "form-action 'self'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
    ].join("; "),
  );
  setCommonHeaders(res);
}

/** The header's context: who is signed in, which merchant is shown and which ones they may switch to. */
export interface Chrome {
  base: string;
  user: DashboardUser;
  /** The merchant whose pages these are; absent on pages outside one merchant (errors, the picker). */
  merchant?: { id: string; name: string } | null;
  /** The merchants for the switcher, when the user's list is known. */
  merchants?: ReadonlyArray<{ id: string; name: string }>;
  current?: Section;
}

/** The sections of a merchant's pages, in the navigation's order: the path under `/m/:merchantId` and the link's label. */
export const SECTIONS = {
  overview: ["", "Overview"],
  payments: ["/payments", "Payments"],
  payouts: ["/payouts", "Payouts"],
  addresses: ["/addresses", "Payout addresses"],
  refunds: ["/refunds", "Refunds"],
  conversions: ["/conversions", "Conversions"],
  links: ["/links", "Links"],
  balances: ["/balances", "Balances"],
  webhooks: ["/webhooks", "Webhooks"],
  keys: ["/keys", "API keys"],
  audit: ["/audit", "Audit log"],
  exports: ["/exports", "Exports"],
} as const satisfies Record<string, readonly [string, string]>;

/** A section of the navigation, marked as the current one on its pages. */
export type Section = keyof typeof SECTIONS;

/** One dashboard page. */
export interface DashboardPage {
  title: string;
  body: SafeHtml;
  chrome: Chrome | null;
}

function navigation(chrome: Chrome): SafeHtml {
  const { base, merchant } = chrome;
  const link = ([key, [path, label]]: [string, readonly [string, string]]) =>
    html`<li><a href="${root}${path}"${chrome.current === key ? html` aria-current="page"` : null}>${label}</a></li>`;
  const root = merchant ? `${base}/m/${encodeURIComponent(merchant.id)}` : null;
  const switcher =
    chrome.merchants && chrome.merchants.length > 1
      ? html`<form method="get" action="${base}/switch"><label for="merchant-switch">Merchant</label><select id="merchant-switch" name="merchant">${chrome.merchants.map(
          (entry) => html`<option value="${entry.id}"${entry.id === merchant?.id ? html` selected` : null}>${entry.name}</option>`,
        )}</select><button type="submit">Open</button></form>`
      : chrome.user.merchants === "all"
        ? html`<form method="get" action="${base}/switch"><label for="merchant-switch">Merchant id</label><input id="merchant-switch" name="merchant" value="${merchant?.id ?? ""}" size="14" required><button type="submit">Open</button></form>`
        : null;
  return html`<header>
<a class="brand" href="${root ?? `${base}/`}">${merchant ? merchant.name : "Payments"}</a>
${root ? html`<nav aria-label="Dashboard"><ul>${Object.entries(SECTIONS).map(link)}</ul></nav>` : null}
${switcher}
<span class="who">${chrome.user.user} <span class="tag role">${chrome.user.role}</span></span>
</header>`;
}

/** Renders and sends a whole document with the dashboard's headers. */
export function sendDashboardPage(res: Response, status: number, page: DashboardPage): void {
  const nonce = newNonce();
  setDashboardHeaders(res, nonce);
  const text = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<link rel="icon" href="data:,">
<title>${page.title} · Payments dashboard</title>
<style nonce="${nonce}">${trustedHtml(DASHBOARD_CSS)}</style>
</head>
<body>
<a class="skip" href="#content">Skip to content</a>
${page.chrome ? navigation(page.chrome) : null}
<main id="content">
<h1>${page.title}</h1>
${page.body}
</main>
</body>
</html>
`.value;
  res.statusCode = status;
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
}

/** A short error page (403, 404, 400), with the header when the user is known. */
export function sendProblem(res: Response, status: number, message: string, chrome: Chrome | null): void {
  const titles: Record<number, string> = { 400: "Bad request", 403: "Not allowed", 404: "Not found", 500: "Something went wrong" };
  sendDashboardPage(res, status, { title: titles[status] ?? "Error", body: html`<p class="notice error" role="alert">${message}</p>`, chrome });
}
