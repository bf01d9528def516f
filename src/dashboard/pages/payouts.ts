import { PAYOUT_STATUSES } from "../../core/payouts/records";
import type { Mode } from "../../core/merchants/records";
import type { WithdrawalView } from "../../core/views/funds";
import { html, type SafeHtml } from "../../html/escape";
import type { Notice } from "../kit";
import type { PayoutRow } from "../payouts-data";
import { csrfField, onceField, modeTag, shortTime } from "./parts";

/** One coin on one network, as the payout form offers it. */
export interface CoinNetwork {
  currency: string;
  network: string;
  /** The network's name ("Tron (TRC20)"). */
  name: string;
}

/** What the payouts page shows. */
export interface PayoutsData {
  base: string;
  /** Withdrawals and refunds held for approval, both modes. */
  queue: readonly PayoutRow[];
  /** The queue was cut at its limit. */
  queueMore: boolean;
  /** The approval queue of all the user's merchants, when they may see more than this one. */
  allQueueHref: string | null;
  rows: readonly WithdrawalView[];
  status: string | undefined;
  mode: Mode | undefined;
  nextHref: string | null;
  coins: readonly CoinNetwork[];
  /** The payout form's last values, kept when the API refused them. */
  form: Record<string, string | undefined>;
  csrf: string | null;
  message: Notice | null;
}

/** The link to a payout's page. */
export function payoutLink(base: string, id: string): SafeHtml {
  return html`<a class="mono" href="${base}/payouts/${encodeURIComponent(id)}">${id}</a>`;
}

/** The approval queue first, then the payout form (admins), then the withdrawals with their filters. */
export function payoutsBody(data: PayoutsData): SafeHtml {
  const option = (value: string, current: string | undefined, label = value) =>
    html`<option value="${value}"${value === (current ?? "") ? html` selected` : null}>${label}</option>`;
  const chosen = data.form.coin ?? "";
  return html`${data.message ? html`<p class="notice ${data.message.tone}" role="status">${data.message.text}</p>` : null}
<section class="card" id="approval-queue" aria-labelledby="queue-title"><h2 id="queue-title">Awaiting approval</h2>
${queueTable(data)}
${data.allQueueHref ? html`<p><a href="${data.allQueueHref}">Payouts awaiting approval at all your merchants</a></p>` : null}
</section>
<section class="card" aria-labelledby="request-title"><h2 id="request-title">Request a payout</h2>
${
  data.csrf
    ? html`<form class="stack" method="post" action="${data.base}/payouts">${csrfField(data.csrf)}${onceField()}
<label>Mode<select name="mode">${option("test", data.form.mode)}${option("live", data.form.mode)}</select></label>
<label>Coin and network<select name="coin" required>${data.coins.map((coin) => option(`${coin.currency}/${coin.network}`, chosen, `${coin.currency} on ${coin.name}`))}</select></label>
<label>Amount<input name="amount" inputmode="decimal" required autocomplete="off" value="${data.form.amount ?? ""}" size="12"></label>
<label>To address<input name="address" required autocomplete="off" value="${data.form.address ?? ""}" size="34"></label>
<button type="submit">Request payout</button></form>
<p class="muted">The balance is debited the amount and the network's fee at once. Above the approval threshold the payout waits for another person to approve it.</p>`
    : html`<p class="muted">Viewers cannot request payouts.</p>`
}
</section>
<section class="card" aria-labelledby="list-title"><h2 id="list-title">Payouts</h2>
<form class="filters" method="get" action="${data.base}/payouts">
<label>Status<select name="status">${option("", data.status, "Any")}${PAYOUT_STATUSES.map((status) => option(status, data.status))}</select></label>
<label>Mode<select name="mode">${option("", data.mode, "Both")}${option("live", data.mode)}${option("test", data.mode)}</select></label>
<button type="submit">Filter</button>
</form>
${
  data.rows.length === 0
    ? html`<p class="muted">No payouts.</p>`
    : html`<div class="table-wrap"><table><caption class="muted">Withdrawals, newest first (refunds are under Refunds)</caption>
<thead><tr><th scope="col">Payout</th><th scope="col">Mode</th><th scope="col">Status</th><th scope="col">Amount</th><th scope="col">Fee</th><th scope="col">To</th><th scope="col">Created</th></tr></thead>
<tbody>${data.rows.map(
        (row) =>
          html`<tr data-payout="${row.id}"><td class="nowrap">${payoutLink(data.base, row.id)}</td><td>${modeTag(row.livemode ? "live" : "test")}</td><td>${row.status}</td><td class="num">${row.amount} ${row.currency}</td><td class="num">${row.fee}</td><td class="nowrap"><span class="mono">${row.address}</span> <span class="muted">(${row.chain})</span></td><td class="nowrap">${shortTime(row.createdAt)}</td></tr>`,
      )}</tbody></table></div>`
}
<div class="pager">${data.nextHref ? html`<a href="${data.nextHref}" rel="next">Older payouts</a>` : html`<span class="muted">End of the list.</span>`}</div>
</section>`;
}

function queueTable(data: PayoutsData): SafeHtml {
  if (data.queue.length === 0) return html`<p class="muted">Nothing is waiting for approval.</p>`;
  return html`<p>Someone other than the requester approves or rejects each one on its page.</p>
<div class="table-wrap"><table><caption class="muted">Withdrawals and refunds held for approval, newest first</caption>
<thead><tr><th scope="col">Payout</th><th scope="col">Kind</th><th scope="col">Mode</th><th scope="col">Amount</th><th scope="col">To</th><th scope="col">Requested by</th><th scope="col">Created</th></tr></thead>
<tbody>${data.queue.map(
    (row) =>
      html`<tr data-held="${row.view.id}"><td class="nowrap">${payoutLink(data.base, row.view.id)}</td><td>${row.kind}</td><td>${modeTag(row.mode)}</td><td class="num">${row.view.amount} ${row.view.currency}</td><td class="nowrap"><span class="mono">${row.view.address}</span></td><td>${row.requestedBy ?? html`<span class="muted">unknown</span>`}</td><td class="nowrap">${shortTime(row.view.createdAt)}</td></tr>`,
  )}</tbody></table></div>
${data.queueMore ? html`<p class="muted">More are waiting: filter the list below by status AWAITING_APPROVAL.</p>` : null}`;
}
