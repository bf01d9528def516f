import type { LedgerLine } from "../../core/ledger/entries";
import type { Mode } from "../../core/merchants/records";
import { html, type SafeHtml } from "../../html/escape";
import { modeTag, shortTime } from "./parts";
import { pager, recordLink } from "./records";

/** A balance row as GET /v1/balances answers it (decimal strings). */
export interface BalanceLine {
  currency: string;
  available: string;
  pending: string;
  lastSettledAt: string | null;
}

/** What the balances page shows. */
export interface BalancesData {
  base: string;
  balances: ReadonlyArray<{ mode: Mode; rows: readonly BalanceLine[] }>;
  entries: readonly LedgerLine[];
  /** The ledger's filters as asked. */
  mode: Mode | undefined;
  currency: string | undefined;
  nextHref: string | null;
}

/** What each kind of ledger entry did, in words. */
const KINDS: Record<LedgerLine["kind"], string> = {
  deposit: "Deposit credited",
  deposit_reversal: "Deposit reversed",
  payout: "Sent",
  payout_reversal: "Returned",
  exchange_out: "Converted from",
  exchange_in: "Converted into",
};

const negative = (amount: string) => amount.startsWith("-");

/** Balances per coin and mode (a balance below zero flagged), then the ledger newest first with its filters. */
export function balancesBody(data: BalancesData): SafeHtml {
  const below = data.balances.flatMap(({ mode, rows }) => rows.filter((row) => negative(row.available)).map((row) => ({ mode, row })));
  const currencies = [...new Set(data.balances.flatMap(({ rows }) => rows.map((row) => row.currency)))].sort();
  const option = (value: string, current: string | undefined, label = value) =>
    html`<option value="${value}"${value === (current ?? "") ? html` selected` : null}>${label}</option>`;
  return html`${
    below.length
      ? html`<div class="notice error" role="alert" data-negative-balances><p>${below.length === 1 ? "A balance is" : "Balances are"} below zero: ${below.map(({ mode, row }, i) => html`${i ? ", " : null}${row.currency} (${mode}) ${row.available}`)}.</p><p>A deposit was reversed on its chain after its credit had been spent. Payouts, refunds and conversions of that coin are refused until new credits bring it back to zero.</p></div>`
      : null
  }
<section class="card" aria-labelledby="balances-title"><h2 id="balances-title">Balances</h2>
<p class="muted">Available is credited and can be spent; pending is seen on chain, not yet confirmed.</p>
<div class="table-wrap" role="region" aria-label="Balances" tabindex="0"><table>
<thead><tr><th scope="col">Coin</th><th scope="col">Mode</th><th scope="col">Available</th><th scope="col">Pending</th><th scope="col">Last change</th></tr></thead><tbody>
${data.balances.flatMap(({ mode, rows }) =>
  rows.map(
    (row) =>
      html`<tr data-balance="${mode}:${row.currency}"><td>${row.currency}</td><td>${modeTag(mode)}</td><td class="num${negative(row.available) ? " bad" : ""}">${row.available}${negative(row.available) ? html` <span class="tag bad">below zero</span>` : null}</td><td class="num">${row.pending}</td><td>${row.lastSettledAt ? shortTime(row.lastSettledAt) : html`<span class="muted">never</span>`}</td></tr>`,
  ),
)}
</tbody></table></div></section>
<section class="card" aria-labelledby="ledger-title"><h2 id="ledger-title">Ledger</h2>
<p class="muted">Every change of a balance, newest first.</p>
<form class="filters" method="get" action="${data.base}/balances">
<label>Mode<select name="mode">${option("", data.mode, "Both")}${option("live", data.mode)}${option("test", data.mode)}</select></label>
<label>Coin<select name="currency">${option("", data.currency, "Any")}${currencies.map((currency) => option(currency, data.currency))}</select></label>
<button type="submit">Filter</button>
</form>
${
  data.entries.length === 0
    ? html`<p class="muted">No ledger entries.</p>`
    : html`<div class="table-wrap pad" role="region" aria-label="Ledger entries" tabindex="0"><table>
<thead><tr><th scope="col">Posted</th><th scope="col">Amount</th><th scope="col">Coin</th><th scope="col">What</th><th scope="col">Record</th><th scope="col">Mode</th></tr></thead><tbody>${data.entries.map(
        (entry) =>
          html`<tr data-entry="${entry.id}"><td class="nowrap">${shortTime(entry.createdAt)}</td><td class="num${negative(entry.amount) ? " bad" : ""}" data-amount>${negative(entry.amount) ? entry.amount : `+${entry.amount}`}</td><td>${entry.currency}</td><td>${KINDS[entry.kind] ?? entry.kind}</td><td class="nowrap">${entry.record ? recordLink(data.base, entry.record) : html`<code>${entry.cause}</code>`}</td><td>${modeTag(entry.livemode ? "live" : "test")}</td></tr>`,
      )}</tbody></table></div>`
}
${pager(data.nextHref, "Older entries")}
</section>`;
}
