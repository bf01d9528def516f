/**
 * The operator audit log's entries and actions.
 * Amounts are bigint smallest units of the record's asset; times are epoch milliseconds.
 * Storage adapters persist these shapes as they are.
 */
import type { Mode } from "../merchants/records";

/** What an audit log entry records. */
export const AUDIT_ACTIONS = [
  "payout.approved",
  "payout.rejected",
  "api_key.issued",
  "api_key.revoked",
  "payout_approval.changed",
  "payout_allowlist.enabled",
  "payout_allowlist.disabled",
  "payout_address.added",
  "payout_address.approved",
  "payout_address.removed",
  "webhook_endpoint.created",
  "webhook_endpoint.secret_rotated",
  "webhook_endpoint.disabled",
  "webhook_endpoint.enabled",
  "webhook_endpoint.deleted",
] as const;

/** One audited action. */
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** One entry of the audit log: who did what to which record, when. */
export interface AuditEntryRecord {
  /** Unique id (`aud_...`). */
  id: string;
  /** Who: a user id or an API key id as the host named it; "host" for the host application's own calls. */
  actor: string;
  /** What was done. */
  action: AuditAction;
  /** The record acted on: a payout id, an API key id, a payout address id; the merchant's id for a merchant setting. */
  recordId: string;
  /** The merchant the record belongs to. */
  merchantId: string;
  /** The record's mode; null for a merchant setting, which covers both modes. */
  mode: Mode | null;
  /** When, epoch ms. */
  at: number;
}
