import type { Request, Response, Router } from "express";
import type { PayoutRecord } from "../../core/payouts/records";
import type { WithdrawalView } from "../../core/views/funds";
import { asyncHandler } from "../../express/async-handler";
import { formatDecimal } from "../../money";
import type { DashboardKit, Notice } from "../kit";
import { readModeList } from "../mode-lists";
import { payoutBody } from "../pages/payout";
import { payoutsBody, type CoinNetwork } from "../pages/payouts";
import { approvalQueue, payoutRow } from "../payouts-data";

/** Longest rejection reason kept: it becomes the payout's failureReason, which the API shows. */
const REASON_MAX = 200;

/**
 * Payouts: the approval queue, the withdrawals of both modes, the form that asks for one (the
 * dashboard user is its requester), and a payout's page, where admins approve or reject a held
 * withdrawal or refund.
 */
export function payoutRoutes(router: Router, kit: DashboardKit): void {
  const { backend } = kit;
  const { admin } = backend;
  const coins: CoinNetwork[] = backend.currencies.currencies.flatMap((currency) =>
    currency.networks.map((network) => ({ currency: currency.symbol, network: network.network, name: network.name })),
  );

  const showPayouts = async (req: Request, res: Response, status: number, extra: { message?: Notice; form?: Record<string, string | undefined> } = {}) => {
    const merchant = kit.merchant(req);
    const base = kit.merchantBase(req);
    const statusFilter = kit.text(req, "status");
    const [queue, list] = await Promise.all([
      approvalQueue(backend, merchant.id),
      readModeList<WithdrawalView>(kit, req, (api, query) => api.withdrawals.list(query), { status: statusFilter }, `${base}/payouts`),
    ]);
    if (!list.ok) return kit.problem(req, res, list.status, list.notice.text, "payouts");
    const { merchants } = kit.user(req);
    const body = payoutsBody({
      base,
      queue: queue.rows,
      queueMore: queue.more,
      allQueueHref: merchants === "all" || merchants.length > 1 ? `${req.baseUrl}/approvals` : null,
      rows: list.page.rows,
      status: statusFilter,
      mode: list.page.mode,
      nextHref: list.page.nextHref,
      coins,
      form: extra.form ?? {},
      csrf: kit.formToken(req),
      message: extra.message ?? null,
    });
    await kit.send(req, res, status, { title: "Payouts", body, section: "payouts" });
  };

  const showPayout = async (req: Request, res: Response, status: number, payout: PayoutRecord, message: Notice | null) => {
    const decimals = backend.currencies.decimalsOf(payout.coin) ?? 0;
    const timeline = await admin.recordTimeline(kit.merchant(req).id, payout.mode, payout.id);
    const body = payoutBody({
      base: kit.merchantBase(req),
      payout: payoutRow(backend, payout),
      debited: formatDecimal(payout.amount + payout.fee, decimals),
      timeline,
      explorers: kit.explorers,
      csrf: kit.formToken(req),
      message,
    });
    await kit.send(req, res, status, { title: `${payout.refundOf === null ? "Payout" : "Refund"} ${payout.id}`, body, section: "payouts" });
  };

  router.get(
    "/m/:merchantId/payouts",
    asyncHandler((req, res) => showPayouts(req, res, 200)),
  );

  router.post(
    "/m/:merchantId/payouts",
    asyncHandler(async (req, res) => {
      const form = req.body as Record<string, string | undefined>;
      const fields = { mode: form.mode, coin: form.coin, amount: form.amount?.trim(), address: form.address?.trim() };
      const mode = form.mode;
      const coin = coins.find((entry) => `${entry.currency}/${entry.network}` === form.coin);
      if ((mode !== "test" && mode !== "live") || !coin) {
        return showPayouts(req, res, 400, { form: fields, message: { tone: "error", text: "Choose a mode and a coin and network from the lists." } });
      }
      const input = { currency: coin.currency, chain: coin.network, amount: fields.amount ?? "", address: fields.address ?? "" };
      // The dashboard user is the requester: another user must approve it if it is held.
      const { actor, idempotencyKey } = kit.creating(req);
      const done = await kit.attempt(() => backend.forMerchant(kit.merchant(req).id, mode, { actor }).withdrawals.create(input, { idempotencyKey }));
      if (!done.ok) return showPayouts(req, res, done.status, { form: fields, message: done.notice });
      // See the new payout on its own page (a reload there reads, never asks for a second payout).
      res.redirect(303, `${kit.merchantBase(req)}/payouts/${encodeURIComponent(done.value.id)}?requested=1`);
    }),
  );

  router.get(
    "/m/:merchantId/payouts/:payoutId",
    asyncHandler(async (req, res) => {
      const payout = await admin.findPayout(kit.merchant(req).id, String(req.params.payoutId));
      if (!payout) return kit.notFound(req, res, "payouts");
      const requested: Notice | null =
        kit.text(req, "requested") === "1"
          ? { tone: "ok", text: `Payout requested: ${payout.status === "AWAITING_APPROVAL" ? "it waits for approval." : "it is on its way."}` }
          : null;
      await showPayout(req, res, 200, payout, requested);
    }),
  );

  /** Approve or reject: the payout must be this merchant's (else 404, as a missing one), and the decision is the core's. */
  const review = (decide: (payout: PayoutRecord, req: Request) => Promise<PayoutRecord>, done: (payout: PayoutRecord) => string) =>
    asyncHandler(async (req, res) => {
      const payout = await admin.findPayout(kit.merchant(req).id, String(req.params.payoutId));
      if (!payout) return kit.notFound(req, res, "payouts");
      const decided = await kit.attempt(() => decide(payout, req));
      if (!decided.ok) return showPayout(req, res, decided.status, (await admin.findPayout(kit.merchant(req).id, payout.id)) ?? payout, decided.notice);
      await showPayout(req, res, 200, decided.value, { tone: "ok", text: done(decided.value) });
    });

  router.post(
    "/m/:merchantId/payouts/:payoutId/approve",
    review(
      (payout, req) => admin.approvePayout(payout.id, { by: kit.actor(req) }),
      () => "Approved: the payout is sent in the next round.",
    ),
  );

  router.post(
    "/m/:merchantId/payouts/:payoutId/reject",
    asyncHandler(async (req, res, next) => {
      const reason = (req.body as Record<string, unknown>).reason;
      if (reason !== undefined && (typeof reason !== "string" || reason.length > REASON_MAX)) {
        const payout = await admin.findPayout(kit.merchant(req).id, String(req.params.payoutId));
        if (!payout) return kit.notFound(req, res, "payouts");
        return showPayout(req, res, 400, payout, { tone: "error", text: `The reason must be text of at most ${REASON_MAX} characters.` });
      }
      next();
    }),
    review(
      (payout, req) => admin.rejectPayout(payout.id, { by: kit.actor(req), reason: (req.body as { reason?: string }).reason }),
      (payout) =>
        `Rejected: ${formatDecimal(payout.amount + payout.fee, backend.currencies.decimalsOf(payout.coin) ?? 0)} ${payout.coin} went back to the balance.`,
    ),
  );
}
