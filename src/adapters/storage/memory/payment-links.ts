import type { PaymentLinkReads, PaymentLinkStore } from "../../../core/ports/storage/index";
import { copyLink } from "./copy";
import { page, pick, scoped } from "./query";
import { conflict, missing, type Run, scopeKey, setIn, type Tables, type Undo, type Writes } from "./tables";

/** Payment links: reads. */
export function paymentLinkReads(t: Tables, run: Run): PaymentLinkReads {
  return {
    getPaymentLink: (scope, id) => run("getPaymentLink", () => scoped(t.paymentLinks.get(id), scope, copyLink)),
    findPaymentLink: (id) => run("findPaymentLink", () => pick(t.paymentLinks.get(id), copyLink)),
    listPaymentLinks: (scope, query) => run("listPaymentLinks", () => page(t.linkOrder, t.paymentLinks, scope, query, copyLink)),
  };
}

/** Payment links: writes. */
export function paymentLinkWrites(t: Tables, run: Run, undo: Undo[]): Writes<PaymentLinkStore, PaymentLinkReads> {
  return {
    insertPaymentLink: (link) =>
      run("insertPaymentLink", () => {
        if (t.paymentLinks.has(link.id)) conflict(`payment link ${link.id}`);
        setIn(t.paymentLinks, link.id, copyLink(link), undo);
        undo.push(t.linkOrder.add(scopeKey(link.merchantId, link.mode), link));
      }),
    lockPaymentLink: (id) => run("lockPaymentLink", () => pick(t.paymentLinks.get(id), copyLink)),
    updatePaymentLink: (link) =>
      run("updatePaymentLink", () => {
        if (!t.paymentLinks.has(link.id)) missing(`payment link ${link.id}`);
        setIn(t.paymentLinks, link.id, copyLink(link), undo);
      }),
  };
}
