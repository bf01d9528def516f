import type { Request } from "express";
import type { PaymentResources } from "../client/resources";
import type { Mode } from "../core/merchants/records";
import { MODES } from "./data";
import type { DashboardKit, Notice } from "./kit";
import type { EndpointDraft } from "./pages/webhooks";

/**
 * The modes an action or page may find a webhook record in. Pages look in both (ids are unique
 * across modes, and a shared link carries no mode). The dashboard's forms name the mode of the
 * record they were shown with, and the action then runs in that mode's scope only: an edited
 * form pointing at the other mode's record, or naming no real mode, finds nothing and answers
 * 404. A form without the field looks in both, as a page does.
 */
export function modesOf(req: Request): readonly Mode[] {
  const mode = req.method === "POST" ? (req.body as Record<string, unknown> | undefined)?.mode : undefined;
  return mode === undefined ? MODES : MODES.filter((entry) => entry === mode);
}

/**
 * A webhook endpoint or delivery of the opened merchant, read by `retrieve` (its /v1 resource) in the
 * modes `modesOf` allows, with the mode that found it; null when none does (another merchant's
 * record, the other mode's, or none at all: the same 404 for each).
 */
export async function findWebhookRecord<T>(
  kit: DashboardKit,
  req: Request,
  retrieve: (api: PaymentResources, id: string) => Promise<T>,
  id: string,
): Promise<{ mode: Mode; record: T } | null> {
  const merchant = kit.merchant(req);
  for (const mode of modesOf(req)) {
    const found = await kit.attempt(() => retrieve(kit.backend.forMerchant(merchant.id, mode), id));
    if (found.ok) return { mode, record: found.value };
  }
  return null;
}

/** What the webhooks page may show besides its lists: a notice, and the new-endpoint form's values after a refusal. */
export interface WebhooksExtra {
  message?: Notice;
  draft?: EndpointDraft;
}
