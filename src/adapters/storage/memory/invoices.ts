import type { InvoiceRecord } from "../../../core/invoices/records";
import type { InvoiceFilter, InvoiceReads, InvoiceStore } from "../../../core/ports/storage/index";
import { copyInvoice } from "./copy";
import { page, pick, scoped } from "./query";
import { conflict, missing, type Run, scopeKey, setIn, type Tables, type Undo, type Writes } from "./tables";

/** The statuses the clock alone moves once an invoice's window passes. */
const EXPIRABLE = new Set<InvoiceRecord["status"]>(["PENDING", "UNDER_PAID"]);

function matchesInvoice(t: Tables, invoice: InvoiceRecord, filter: InvoiceFilter): boolean {
  return (
    (filter.orderId === undefined || invoice.metadata?.orderId === filter.orderId) &&
    (filter.txHash === undefined || [...t.deposits.values()].some((deposit) => deposit.invoiceId === invoice.id && deposit.txHash === filter.txHash)) &&
    (filter.status === undefined || invoice.status === filter.status) &&
    (filter.network === undefined || invoice.network === filter.network) &&
    (filter.createdFrom === undefined || invoice.createdAt >= filter.createdFrom) &&
    (filter.createdTo === undefined || invoice.createdAt < filter.createdTo)
  );
}

/** Invoices: reads. */
export function invoiceReads(t: Tables, run: Run): InvoiceReads {
  return {
    getInvoice: (scope, id) => run("getInvoice", () => scoped(t.invoices.get(id), scope, copyInvoice)),
    findInvoice: (id) => run("findInvoice", () => pick(t.invoices.get(id), copyInvoice)),
    listInvoices: (scope, filter, query) =>
      run("listInvoices", () =>
        page(t.invoiceOrder, t.invoices, scope, query, (invoice) => (matchesInvoice(t, invoice, filter) ? copyInvoice(invoice) : null)),
      ),
    listExpiringInvoices: (mode, now, limit) =>
      run("listExpiringInvoices", () =>
        [...t.invoices.values()]
          .filter((invoice) => invoice.mode === mode && EXPIRABLE.has(invoice.status) && invoice.expiresAt <= now)
          .sort((a, b) => a.expiresAt - b.expiresAt)
          .slice(0, Math.max(0, limit))
          .map(copyInvoice),
      ),
  };
}

/** Invoices: writes. */
export function invoiceWrites(t: Tables, run: Run, undo: Undo[]): Writes<InvoiceStore, InvoiceReads> {
  return {
    insertInvoice: (invoice) =>
      run("insertInvoice", () => {
        if (t.invoices.has(invoice.id)) conflict(`invoice ${invoice.id}`);
        setIn(t.invoices, invoice.id, copyInvoice(invoice), undo);
        undo.push(t.invoiceOrder.add(scopeKey(invoice.merchantId, invoice.mode), invoice));
      }),
    lockInvoice: (id) => run("lockInvoice", () => pick(t.invoices.get(id), copyInvoice)),
    updateInvoice: (invoice) =>
      run("updateInvoice", () => {
        if (!t.invoices.has(invoice.id)) missing(`invoice ${invoice.id}`);
        setIn(t.invoices, invoice.id, copyInvoice(invoice), undo);
      }),
  };
}
