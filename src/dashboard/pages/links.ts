import { html, type SafeHtml } from "../../html/escape";
import type { Notice } from "../kit";
import { modeFilter, pager, type ListPage } from "./money-lists";
import { csrfField, modeTag, shortTime } from "./parts";

/** A payment link as GET /v1/payment-links answers it (the fields the page shows). */
export interface LinkRow {
  id: string;
  livemode: boolean;
  url: string;
  active: boolean;
  amount: string;
  amountCurrency: string;
  acceptedCoins: string[] | null;
  createdAt: string;
}

/** The payment links of both modes, with a deactivate button per active link for admins. */
export function linksBody(page: ListPage<LinkRow> & { csrf: string | null; message: Notice | null }): SafeHtml {
  return html`${page.message ? html`<p class="notice ${page.message.tone}" role="status">${page.message.text}</p>` : null}
<section class="card" aria-labelledby="list-title"><h2 id="list-title">Payment links</h2>
${modeFilter(`${page.base}/links`, page.mode)}
${
  page.rows.length === 0
    ? html`<p class="muted">No payment links.</p>`
    : // Without the router's publicUrl no row holds a link: the wrap takes focus, so a keyboard can scroll it.
      html`<div class="table-wrap" tabindex="0" role="region" aria-label="Payment links, scrollable"><table><caption class="muted">Newest first; a deactivated link's page answers that it is gone and creates no payment</caption>
<thead><tr><th scope="col">Link</th><th scope="col">Mode</th><th scope="col">Amount</th><th scope="col">Coins</th><th scope="col">State</th><th scope="col">Created</th>${page.csrf ? html`<th scope="col"><span class="muted">Action</span></th>` : null}</tr></thead>
<tbody>${page.rows.map(
        (row) =>
          html`<tr data-link="${row.id}"><td class="nowrap">${/^https?:\/\//.test(row.url) ? html`<a class="mono" href="${row.url}">${row.id}</a>` : html`<span class="mono">${row.id}</span>`}</td><td>${modeTag(row.livemode ? "live" : "test")}</td><td class="num">${row.amount} ${row.amountCurrency}</td><td>${row.acceptedCoins?.join(", ") ?? "Any"}</td><td data-link-state>${row.active ? "Active" : "Deactivated"}</td><td class="nowrap">${shortTime(row.createdAt)}</td>${
            page.csrf
              ? html`<td>${
                  row.active
                    ? html`<form method="post" action="${page.base}/links/${encodeURIComponent(row.id)}/deactivate">${csrfField(page.csrf)}<button type="submit" class="danger" aria-label="Deactivate ${row.id}">Deactivate</button></form>`
                    : null
                }</td>`
              : null
          }</tr>`,
      )}</tbody></table></div>`
}
${pager(page.nextHref, "Older links")}
</section>`;
}
