import type { PaymentLinkRecord } from "../../payment-links/records";
import type { PageQuery, Scope } from "./scope";

/**
 * Reads of payment links. A read given a `Scope` never answers another merchant's or mode's
 * link; `findPaymentLink` alone reaches any, for the link's public page.
 */
export interface PaymentLinkReads {
  /** The payment link with this id in `scope`, or null. */
  getPaymentLink(scope: Scope, id: string): Promise<PaymentLinkRecord | null>;
  /** The payment link with this id, whoever owns it (its public URL carries only the id), or null. */
  findPaymentLink(id: string): Promise<PaymentLinkRecord | null>;
  /** Payment links of `scope`, newest first by (createdAt, id), one page. */
  listPaymentLinks(scope: Scope, page: PageQuery): Promise<PaymentLinkRecord[]>;
}

/**
 * Payment links, as a transaction sees them: the id is unique, and a link changes under
 * `lockPaymentLink`. Optional with its reads (the `paymentLinks` part): without it payment links
 * answer `storage_feature_unavailable`.
 */
export interface PaymentLinkStore extends PaymentLinkReads {
  /** Stores a new payment link. Throws if the id exists. */
  insertPaymentLink(link: PaymentLinkRecord): Promise<void>;
  /** Locks and returns the payment link with this id (any merchant), or null. */
  lockPaymentLink(id: string): Promise<PaymentLinkRecord | null>;
  /** Replaces the stored payment link with the same id (which must exist: throws otherwise). */
  updatePaymentLink(link: PaymentLinkRecord): Promise<void>;
}
