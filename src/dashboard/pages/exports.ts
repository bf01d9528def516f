import { EXPORT_MAX_DAYS } from "../../core/exports/request";
import { html, type SafeHtml } from "../../html/escape";

/** The export form's values, as asked (or the defaults). */
export interface ExportForm {
  kind: string;
  from: string;
  to: string;
  mode: string;
}

/** What the exports page shows. */
export interface ExportsData {
  base: string;
  form: ExportForm;
  /** Why the last request could not be exported (a 400), or null. */
  problem: string | null;
}

/** The kinds a merchant exports, in the form's order, with their labels. */
export const EXPORT_CHOICES: ReadonlyArray<readonly [string, string]> = [
  ["payments", "Payments"],
  ["deposits", "Deposits"],
  ["payouts", "Payouts (withdrawals)"],
  ["refunds", "Refunds"],
  ["conversions", "Conversions"],
  ["ledger", "Ledger entries"],
  ["audit", "Audit log"],
];

/** A GET form that downloads one kind of this merchant's records over a range of days as CSV. */
export function exportsBody(data: ExportsData): SafeHtml {
  const { form } = data;
  const option = (value: string, current: string, label: string) =>
    html`<option value="${value}"${value === current ? html` selected` : null}>${label}</option>`;
  return html`${data.problem ? html`<p class="notice error" role="alert">${data.problem}</p>` : null}
<section class="card" aria-labelledby="export-title"><h2 id="export-title">Download a CSV file</h2>
<p class="muted">This merchant's records only, oldest first. Days are UTC, both ends included, at most ${EXPORT_MAX_DAYS} days in one file. Amounts are exact decimals.</p>
<form class="stack" method="get" action="${data.base}/exports/csv">
<label>Records<select name="kind">${EXPORT_CHOICES.map(([value, label]) => option(value, form.kind, label))}</select></label>
<label>From<input type="date" name="from" value="${form.from}" required></label>
<label>To<input type="date" name="to" value="${form.to}" required></label>
<label>Mode<select name="mode">${option("", form.mode, "Both")}${option("live", form.mode, "live")}${option("test", form.mode, "test")}</select></label>
<button type="submit">Download CSV</button>
</form>
</section>`;
}
