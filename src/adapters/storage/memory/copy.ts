import type { EventRecord, WebhookEndpointRecord } from "../../../core/webhooks/records";
import type { InvoiceRecord } from "../../../core/invoices/records";
import type { MerchantRecord } from "../../../core/merchants/records";
import type { PaymentLinkRecord } from "../../../core/payment-links/records";
import type { PayoutRecord } from "../../../core/payouts/records";

// Copies in and out. Most records hold only primitives (bigint included), so a spread is a full
// copy; the nested fields (metadata, event data) are JSON by contract, and a JSON-shaped deep
// copy of them costs a fraction of structuredClone on the request path.

/** A copy of a record whose fields are all primitives. */
export const copy = <T extends object>(record: T): T => ({ ...record });

/** A copy of a payout, a refund claim link's terms included. */
export const copyPayout = (payout: PayoutRecord): PayoutRecord => ({
  ...payout,
  claim: payout.claim
    ? {
        ...payout.claim,
        networks: [...payout.claim.networks],
        coins: payout.claim.coins.map((entry) => ({ ...entry, networks: [...entry.networks] })),
        origin: payout.claim.origin ? { ...payout.claim.origin } : null,
        fiat: payout.claim.fiat ? { ...payout.claim.fiat } : null,
      }
    : payout.claim,
});

/** A copy of a merchant, its approval threshold included. */
export const copyMerchant = (merchant: MerchantRecord): MerchantRecord => ({
  ...merchant,
  payoutApproval: merchant.payoutApproval ? { ...merchant.payoutApproval } : merchant.payoutApproval,
});

/** A copy of an invoice, its lists and metadata included. */
export const copyInvoice = (invoice: InvoiceRecord): InvoiceRecord => ({
  ...invoice,
  acceptedCoins: invoice.acceptedCoins ? [...invoice.acceptedCoins] : invoice.acceptedCoins,
  rateSources: invoice.rateSources ? [...invoice.rateSources] : invoice.rateSources,
  metadata: invoice.metadata ? copyJson(invoice.metadata) : invoice.metadata,
});

/** A copy of an event, its data included. */
export const copyEvent = (event: EventRecord): EventRecord => ({ ...event, data: copyJson(event.data) });

/** A copy of a webhook endpoint, its event list and secrets included. */
export const copyEndpoint = (endpoint: WebhookEndpointRecord): WebhookEndpointRecord => ({
  ...endpoint,
  events: endpoint.events ? [...endpoint.events] : null,
  secrets: endpoint.secrets.map(copy),
});

/** A copy of a payment link, its coin list and metadata included. */
export const copyLink = (link: PaymentLinkRecord): PaymentLinkRecord => ({
  ...link,
  acceptedCoins: link.acceptedCoins ? [...link.acceptedCoins] : null,
  metadata: link.metadata ? copyJson(link.metadata) : null,
});

/** Deep copy of JSON-shaped data (objects, arrays, primitives; bigint kept as it is). */
export function copyJson<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(copyJson) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const copied = copyJson((value as Record<string, unknown>)[key]);
    // A JSON "__proto__" key is data; plain assignment would set the copy's prototype instead.
    if (key === "__proto__") Object.defineProperty(out, key, { value: copied, enumerable: true, writable: true, configurable: true });
    else out[key] = copied;
  }
  return out as T;
}
