import type { Request } from "express";
import type { PaymentResources } from "../client/resources";
import type { Mode } from "../core/merchants/records";
import { mergeModes } from "./data";
import type { DashboardKit, Notice } from "./kit";

/** How many rows a list page shows. */
export const LIST_PAGE_SIZE = 25;

/** One page of a /v1 list of both modes (or the one the `mode` filter names), with the link to the next. */
export interface ModeListPage<T> {
  rows: T[];
  /** The `mode` filter of the request, when it names one. */
  mode: Mode | undefined;
  /** The URL of the next page (same filters, the merged cursor), or null on the last page. */
  nextHref: string | null;
}

/** One /v1 list of the resources (`api.withdrawals.list`, …), called with the page's query. */
export type ModeListRead<T> = (api: PaymentResources, query: Record<string, string>) => PromiseLike<{ data: T[]; hasMore: boolean }>;

/**
 * Reads one page of a /v1 list (withdrawals, refunds, …) for the opened merchant, both modes
 * merged newest first unless the query's `mode` names one. `filters` are passed to the list as
 * they are (the /v1 route validates them: a bad value is a refusal, shown as a 400 page);
 * `pagePath` is the dashboard page the next-page link points at.
 */
export async function readModeList<T extends { id: string; livemode: boolean; createdAt: string | null }>(
  kit: DashboardKit,
  req: Request,
  list: ModeListRead<T>,
  filters: Record<string, string | undefined>,
  pagePath: string,
): Promise<{ ok: true; page: ModeListPage<T> } | { ok: false; status: number; notice: Notice }> {
  const merchant = kit.merchant(req);
  const modeText = kit.text(req, "mode");
  const mode = modeText === "live" || modeText === "test" ? modeText : undefined;
  const read = await kit.attempt(() =>
    mergeModes<T>(mode, kit.text(req, "cursor"), LIST_PAGE_SIZE, async (each, after) => {
      const input = Object.fromEntries(Object.entries({ ...filters, limit: String(LIST_PAGE_SIZE), cursor: after }).filter(([, value]) => value)) as Record<
        string,
        string
      >;
      return list(kit.backend.forMerchant(merchant.id, each), input);
    }),
  );
  if (!read.ok) return read;
  const query = new URLSearchParams(Object.entries({ ...filters, mode }).filter((entry): entry is [string, string] => Boolean(entry[1])));
  if (read.value.next) query.set("cursor", read.value.next);
  return { ok: true, page: { rows: read.value.rows, mode, nextHref: read.value.next ? `${pagePath}?${query}` : null } };
}
