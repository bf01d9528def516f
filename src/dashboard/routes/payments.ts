import type { Request, Response, Router } from "express";
import { asyncHandler } from "../../express/async-handler";
import { findPayment, listPayments, SEARCH_LIMIT, type PaymentFilters } from "../data";
import type { DashboardKit, Notice } from "../kit";
import { paymentBody } from "../pages/payment";
import { paymentsBody } from "../pages/payments";

const PAGE_SIZE = 25;

/** The payments list with its filters and search, a payment's page, and its refund action. */
export function paymentRoutes(router: Router, kit: DashboardKit): void {
  const { backend } = kit;
  const { admin } = backend;

  router.get(
    "/m/:merchantId/payments",
    asyncHandler(async (req, res) => {
      const merchant = kit.merchant(req);
      const base = kit.merchantBase(req);
      const q = kit.text(req, "q")?.trim();
      if (q) {
        // A payment id, then a deposit address, then an order id or a transaction hash.
        const id = (await findPayment(backend, merchant, q)) ? q : ((await admin.findPaymentByAddress(merchant.id, q))?.paymentId ?? null);
        const matches = id ? [] : await admin.searchPayments(merchant.id, q, { limit: SEARCH_LIMIT });
        const only = id ?? (matches.length === 1 ? matches[0]!.id : null);
        if (only) return res.redirect(303, `${base}/payments/${encodeURIComponent(only)}`);
        const body = paymentsBody(base, { q }, matches, null);
        return kit.send(req, res, 200, { title: matches.length ? `Payments matching ${q}` : `No payment ${q}`, body, section: "payments" });
      }
      const mode = kit.text(req, "mode");
      const from = kit.text(req, "from");
      const to = kit.text(req, "to");
      const filters: PaymentFilters = {
        status: kit.text(req, "status"),
        mode: mode === "live" || mode === "test" ? mode : undefined,
        chain: kit.text(req, "chain")?.toUpperCase(),
        createdFrom: from && `${from}T00:00:00Z`,
        createdTo: to && `${to}T00:00:00Z`,
      };
      const read = await kit.attempt(() => listPayments(backend, merchant, filters, kit.text(req, "cursor"), PAGE_SIZE));
      if (!read.ok) return kit.problem(req, res, read.status, read.notice.text, "payments");
      const page = read.value;
      const nextQuery = new URLSearchParams(
        Object.entries(req.query).filter((entry): entry is [string, string] => typeof entry[1] === "string" && entry[0] !== "cursor" && entry[0] !== "q"),
      );
      if (page.next) nextQuery.set("cursor", page.next);
      const body = paymentsBody(base, filters, page.rows, page.next ? `${base}/payments?${nextQuery}` : null);
      await kit.send(req, res, 200, { title: "Payments", body, section: "payments" });
    }),
  );

  const showPayment = async (req: Request, res: Response, status: number, message: Notice | null) => {
    const merchant = kit.merchant(req);
    const found = await findPayment(backend, merchant, String(req.params.paymentId));
    if (!found) return kit.notFound(req, res, "payments");
    const timeline = await admin.recordTimeline(merchant.id, found.mode, found.payment.id);
    const body = paymentBody({ base: kit.merchantBase(req), ...found, timeline, explorers: kit.explorers, csrf: kit.formToken(req), message });
    await kit.send(req, res, status, { title: `Payment ${found.payment.id}`, body, section: "payments" });
  };

  router.get(
    "/m/:merchantId/payments/:paymentId",
    asyncHandler((req, res) => showPayment(req, res, 200, null)),
  );

  router.post(
    "/m/:merchantId/payments/:paymentId/refund",
    asyncHandler(async (req, res) => {
      const merchant = kit.merchant(req);
      const found = await findPayment(backend, merchant, String(req.params.paymentId));
      if (!found) return kit.notFound(req, res, "payments");
      const form = req.body as Record<string, string | undefined>;
      // The dashboard user is the refund's requester: another user must approve it if it is held.
      const input = { paymentId: found.payment.id, address: form.address ?? "", ...(form.amount ? { amount: form.amount } : {}) };
      const { actor, idempotencyKey } = kit.creating(req);
      const done = await kit.attempt(() => backend.forMerchant(merchant.id, found.mode, { actor }).refunds.create(input, { idempotencyKey }));
      if (!done.ok) return showPayment(req, res, done.status, done.notice);
      await showPayment(req, res, 200, { tone: "ok", text: `Refund ${done.value.id} of ${done.value.amount} ${done.value.currency} started.` });
    }),
  );
}
