import type { Mode } from "../merchants/records";
import { EXPORT_KINDS, type ExportKind } from "./kinds";

/** What `payments.admin.export()` takes. */
export interface ExportRequest {
  /** payments, deposits, payouts, refunds, conversions, ledger or audit. */
  kind: ExportKind;
  /** First day of the range, "YYYY-MM-DD" (UTC), included from 00:00:00.000. */
  from: string;
  /** Last day of the range, "YYYY-MM-DD" (UTC), included up to 23:59:59.999. */
  to: string;
  /** One merchant's records; every merchant's when absent. */
  merchantId?: string;
  /** One mode's records ("test" or "live"); both when absent. */
  mode?: Mode;
}

/** The longest range one export covers, in days: a leap year. */
export const EXPORT_MAX_DAYS = 366;

const DAY_MS = 86_400_000;
const FIELDS = new Set(["kind", "from", "to", "merchantId", "mode"]);

/** A checked request: the range as epoch ms, `from` included and `to` excluded. */
export interface CheckedExportRequest {
  kind: ExportKind;
  fromDay: string;
  toDay: string;
  from: number;
  to: number;
  merchantId?: string;
  mode?: Mode;
}

/** Epoch ms of a "YYYY-MM-DD" day's start in UTC; a TypeError naming `field` for anything else. */
function day(field: string, value: unknown): number {
  const text = typeof value === "string" ? value : "";
  const at = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00.000Z`) : Number.NaN;
  // Date.parse takes a day past its month's end (2024-02-30 as March 1st): the round trip refuses it.
  if (Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== text) {
    throw new TypeError(`export: ${field} must be a calendar day as "YYYY-MM-DD" (UTC), not ${JSON.stringify(value)}`);
  }
  return at;
}

/**
 * Checks an export request and turns its days into a time range. Every refusal is a TypeError
 * whose message names the field: an unknown kind or field, a malformed or impossible day, `from`
 * after `to`, a range longer than `EXPORT_MAX_DAYS`, a mode other than "test" or "live", an empty
 * merchant id.
 */
export function checkExportRequest(request: unknown): CheckedExportRequest {
  if (request === null || typeof request !== "object") throw new TypeError("export: expected { kind, from, to, merchantId?, mode? }");
  const input = request as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!FIELDS.has(key)) throw new TypeError(`export: unknown field ${JSON.stringify(key)} (expected kind, from, to, merchantId, mode)`);
  }
  const kinds = Object.keys(EXPORT_KINDS);
  if (typeof input.kind !== "string" || !Object.hasOwn(EXPORT_KINDS, input.kind)) {
    throw new TypeError(`export: kind must be one of ${kinds.join(", ")}, not ${JSON.stringify(input.kind)}`);
  }
  const from = day("from", input.from);
  const to = day("to", input.to);
  if (from > to) throw new TypeError(`export: from (${input.from}) is after to (${input.to})`);
  const days = (to - from) / DAY_MS + 1;
  if (days > EXPORT_MAX_DAYS) throw new TypeError(`export: the range covers ${days} days; one export covers at most ${EXPORT_MAX_DAYS}`);
  if (input.mode !== undefined && input.mode !== "test" && input.mode !== "live") {
    throw new TypeError(`export: mode must be "test" or "live" (or absent for both), not ${JSON.stringify(input.mode)}`);
  }
  if (input.merchantId !== undefined && (typeof input.merchantId !== "string" || input.merchantId === "")) {
    throw new TypeError(`export: merchantId must be a merchant's id (or absent for every merchant), not ${JSON.stringify(input.merchantId)}`);
  }
  return {
    kind: input.kind as ExportKind,
    fromDay: input.from as string,
    toDay: input.to as string,
    from,
    to: to + DAY_MS,
    ...(input.merchantId !== undefined ? { merchantId: input.merchantId } : {}),
    ...(input.mode !== undefined ? { mode: input.mode } : {}),
  };
}
