import type { AuditEntry } from "../../core/audit/audit-log";
import type { AuditAction } from "../../core/audit/records";
import type { RecordRef } from "../../core/ledger/entries";
import { html, type SafeHtml } from "../../html/escape";
import { modeTag, shortTime } from "./parts";
import { pager, recordLink } from "./records";

/** An audit entry with the record it acted on, when the merchant can open it. */
export interface AuditLine extends AuditEntry {
  /** A payout's or refund's page; null for a key (linked to the keys page) or a record no longer found. */
  record: RecordRef | null;
}

/** What the audit page shows. */
export interface AuditData {
  base: string;
  entries: readonly AuditLine[];
  nextHref: string | null;
}

/** Each audited action, in words. */
const ACTIONS: Record<AuditAction, string> = {
  "payout.approved": "Approved a payout",
  "payout.rejected": "Rejected a payout",
  "api_key.issued": "Issued an API key",
  "api_key.revoked": "Revoked an API key",
  "payout_approval.changed": "Changed the payout approval threshold",
  "payout_allowlist.enabled": "Turned the payout allowlist on",
  "payout_allowlist.disabled": "Turned the payout allowlist off",
  "payout_address.added": "Proposed a payout address",
  "payout_address.approved": "Approved a payout address",
  "payout_address.removed": "Removed a payout address",
  "webhook_endpoint.created": "Added a webhook endpoint",
  "webhook_endpoint.secret_rotated": "Rotated a webhook endpoint's secret",
  "webhook_endpoint.disabled": "Disabled a webhook endpoint",
  "webhook_endpoint.enabled": "Enabled a webhook endpoint",
  "webhook_endpoint.deleted": "Deleted a webhook endpoint",
};

function recordCell(base: string, entry: AuditLine): SafeHtml {
  if (entry.record) return recordLink(base, entry.record);
  if (entry.action.startsWith("api_key.")) return html`Key <a class="mono" href="${base}/keys">${entry.recordId}</a>`;
  if (entry.action.startsWith("payout_address.")) return html`Address <a class="mono" href="${base}/addresses">${entry.recordId}</a>`;
  if (entry.action === "webhook_endpoint.deleted") return html`Endpoint <code>${entry.recordId}</code>`;
  if (entry.action.startsWith("webhook_endpoint."))
    return html`Endpoint <a class="mono" href="${base}/webhooks/endpoints/${encodeURIComponent(entry.recordId)}">${entry.recordId}</a>`;
  if (entry.action.startsWith("payout_allowlist.") || entry.action.startsWith("payout_approval.")) return html`Merchant settings`;
  return html`<code>${entry.recordId}</code>`;
}

/** The merchant's audit log, newest first: who did what to which record, when. Read-only for everyone. */
export function auditBody(data: AuditData): SafeHtml {
  return html`<section class="card" aria-labelledby="audit-title"><h2 id="audit-title">Entries</h2>
<p class="muted">Payout approvals and rejections, API keys issued and revoked, the approval threshold and the payout allowlist changed, webhook endpoints added, rotated, disabled, enabled and deleted: by whom and when, newest first. Entries are never changed or removed.</p>
${
  data.entries.length === 0
    ? html`<p class="muted">Nothing was recorded yet.</p>`
    : html`<div class="table-wrap" role="region" aria-label="Audit log entries" tabindex="0"><table>
<thead><tr><th scope="col">When</th><th scope="col">Action</th><th scope="col">Record</th><th scope="col">Who</th><th scope="col">Mode</th></tr></thead><tbody>${data.entries.map(
        (entry) =>
          html`<tr data-audit="${entry.id}"><td class="nowrap">${shortTime(entry.at)}</td><td>${ACTIONS[entry.action] ?? entry.action}</td><td class="nowrap">${recordCell(data.base, entry)}</td><td class="mono nowrap">${entry.actor}</td><td>${entry.mode ? modeTag(entry.mode) : html`<span class="muted">both</span>`}</td></tr>`,
      )}</tbody></table></div>`
}
${pager(data.nextHref, "Older entries")}
</section>`;
}
