import type { InvoiceRecord, InvoiceStatus } from "../../invoices/records";
import type { Mode } from "../../merchants/records";
import type { PageQuery, Scope } from "./scope";

/** Filters of the invoice (payment) list; times are epoch ms, `createdTo` exclusive. */
export interface InvoiceFilter {
  status?: InvoiceStatus;
  createdFrom?: number;
  createdTo?: number;
  network?: string;
  /** Only invoices whose `metadata.orderId` is this string (exactly). */
  orderId?: string;
  /** Only invoices with a deposit of this transaction hash (exactly, as the chain writes it). */
  txHash?: string;
}

/**
 * Reads of invoices (the /v1 payments). A read given a `Scope` never answers another
 * merchant's or mode's invoice; `findInvoice` alone reaches any, for the public payment page.
 */
export interface InvoiceReads {
  /** The invoice with this id if it belongs to `scope`, else null (another merchant's id is "not found"). */
  getInvoice(scope: Scope, id: string): Promise<InvoiceRecord | null>;
  /**
   * The invoice with this id, whoever owns it, or null: a plain read for the public payment
   * page, whose URL carries only the id. It takes no lock, so a page view never waits on (or
   * holds up) the transactions that change the invoice.
   */
  findInvoice(id: string): Promise<InvoiceRecord | null>;
  /**
   * Invoices of `scope` matching `filter`, newest first by (createdAt, id), one page: with
   * `page.after`, those ordered after that invoice. Invoices created meanwhile never shift a
   * page, because they sort before the cursor.
   */
  listInvoices(scope: Scope, filter: InvoiceFilter, page: PageQuery): Promise<InvoiceRecord[]>;
  /**
   * Invoices in `mode` (every merchant) that the clock alone moves once their window passes:
   * status PENDING or UNDER_PAID with `expiresAt <= now`. (A CONFIRMING invoice waits for its
   * deposits however late it is, so it is left out: listing it would crowd due invoices off the
   * page.) Oldest `expiresAt` first, at most `limit`.
   */
  listExpiringInvoices(mode: Mode, now: number, limit: number): Promise<InvoiceRecord[]>;
}

/**
 * Invoices, as a transaction sees them: the id is unique, and every change of an invoice is
 * made under `lockInvoice`, so that two transactions changing one invoice (a deposit and the
 * expiry, say) run one after the other.
 */
export interface InvoiceStore extends InvoiceReads {
  /**
   * Stores a new invoice. Fails if the id exists: here, or (an adapter that sends the insert
   * together with the next statement) by making the transaction throw.
   */
  insertInvoice(invoice: InvoiceRecord): Promise<void>;
  /** Locks and returns the invoice with this id (any merchant), or null. */
  lockInvoice(id: string): Promise<InvoiceRecord | null>;
  /** Replaces the stored invoice with the same id (which must exist: throws otherwise). */
  updateInvoice(invoice: InvoiceRecord): Promise<void>;
}
