import { randomBytes } from "node:crypto";
import express, { type Request, type Response, type Router } from "express";
import * as merchants from "../core/merchants";
import type { MerchantRecord, Mode } from "../core/ports/records";
import { CodedError } from "../errors";
import { asyncHandler } from "../http/async-handler";
import { formBodyReader } from "../http/form-body";
import { CsrfTokens } from "./csrf";
import {
  findPayment,
  findPaymentByAddress,
  listPayments,
  mergeModes,
  paymentTimeline,
  searchPayments,
  MODES,
  type DashboardDeps,
  type PaymentFilters,
} from "./data";
import { sendDashboardPage, sendProblem, type Chrome } from "./layout";
import { checkDashboardOptions, checkUser, type DashboardOptions, type DashboardUser } from "./options";
import { chooseBody } from "./pages/choose";
import { keysBody } from "./pages/keys";
import { overviewBody, type BalanceRow } from "./pages/overview";
import { paymentBody } from "./pages/payment";
import { paymentsBody } from "./pages/payments";
import { webhooksBody, type DeliveryRow, type EndpointRow } from "./pages/webhooks";

const PAGE_SIZE = 25;
const NOT_FOUND = "There is nothing here, or you may not see it.";

/** Per request: who is signed in and, under /m/:merchantId, the merchant they opened. */
interface Visit {
  user: DashboardUser;
  merchant: MerchantRecord | null;
}

const visits = new WeakMap<Request, Visit>();
const visitOf = (req: Request) => visits.get(req)!;
/** How the audit log and a payout's requester name a dashboard user. */
const actorOf = (user: DashboardUser) => `dashboard:${user.user}`;

/** Most merchants the switcher lists for a user who may see all of them (more: they open one by id). */
const SWITCHER_LIMIT = 50;

/**
 * The merchant dashboard: server-rendered pages the host mounts behind its own login. Every
 * request is authorized first; every merchant page checks the user may see that merchant, and
 * every form post checks the role and the CSRF token before anything changes.
 */
export function dashboardRouter(deps: DashboardDeps, options: DashboardOptions, bodyTimeoutMs: number): Router {
  checkDashboardOptions(options);
  const { context } = deps;
  const csrf = new CsrfTokens(options.csrfSecret ?? randomBytes(32), context.now);
  const explorers = options.explorers ?? {};
  const router = express.Router();
  const base = (req: Request) => req.baseUrl;
  const merchantBase = (req: Request) => `${req.baseUrl}/m/${encodeURIComponent(visitOf(req).merchant!.id)}`;
  const readForm = formBodyReader(bodyTimeoutMs);
  const may = (user: DashboardUser, id: string) => user.merchants === "all" || user.merchants.includes(id);

  // A user who may see every merchant picks from a list while it is short; past that, by id.
  const allMerchants = async () => {
    const page = await context.storage.listMerchants({ limit: SWITCHER_LIMIT + 1 });
    return page.length > SWITCHER_LIMIT ? undefined : page.sort((a, b) => a.name.localeCompare(b.name));
  };
  const chromeOf = async (req: Request, current?: Chrome["current"]): Promise<Chrome> => {
    const { user, merchant } = visitOf(req);
    const list =
      user.merchants === "all"
        ? await allMerchants()
        : (await Promise.all(user.merchants.map((id) => context.storage.getMerchant(id)))).filter((entry) => entry !== null);
    return {
      base: base(req),
      user,
      merchant: merchant ? { id: merchant.id, name: merchant.name } : null,
      merchants: list?.map(({ id, name }) => ({ id, name })),
      current,
    };
  };

  const problem = (req: Request, res: Response, status: number, message: string) =>
    chromeOf(req).then(
      (chrome) => sendProblem(res, status, message, chrome),
      () => sendProblem(res, status, message, null),
    );

  router.use(
    asyncHandler(async (req, res, next) => {
      const user = checkUser(await options.authorize(req));
      if (!user) return sendProblem(res, 403, "You are not allowed to use this dashboard.", null);
      visits.set(req, { user, merchant: null });
      next();
    }),
  );

  router.get(
    "/",
    asyncHandler(async (req, res) => {
      const { user } = visitOf(req);
      if (user.merchants !== "all" && user.merchants.length > 0) return res.redirect(303, `${base(req)}/m/${encodeURIComponent(user.merchants[0]!)}`);
      sendDashboardPage(res, 200, { title: "Choose a merchant", body: chooseBody(base(req), user), chrome: await chromeOf(req) });
    }),
  );

  router.get("/switch", (req, res) => {
    const id = typeof req.query.merchant === "string" ? req.query.merchant : "";
    res.redirect(303, `${base(req)}/m/${encodeURIComponent(id)}`);
  });

  router.use(
    "/m/:merchantId",
    asyncHandler(async (req, res, next) => {
      const visit = visitOf(req);
      const id = String(req.params.merchantId);
      const merchant = may(visit.user, id) ? await context.storage.getMerchant(id) : null;
      if (!merchant) return sendProblem(res, 404, NOT_FOUND, await chromeOf(req));
      visit.merchant = merchant;
      if (req.method !== "POST") return next();
      // Every action: read the form, then refuse viewers and posts without this user's token.
      readForm(req, res, (error?: unknown) => {
        if (error) return next(error);
        if (visit.user.role !== "admin") return void problem(req, res, 403, "Viewers cannot change anything.");
        if (!csrf.verify(visit.user, (req.body as Record<string, unknown> | undefined)?._csrf)) {
          return void problem(req, res, 403, "This form expired or did not come from this dashboard. Reload the page and try again.");
        }
        next();
      });
    }),
  );

  router.get(
    "/m/:merchantId",
    asyncHandler(async (req, res) => {
      const merchant = visitOf(req).merchant!;
      const [balances, recent, endpoints, reports, health] = await Promise.all([
        Promise.all(MODES.map(async (mode) => ({ mode, rows: ((await deps.v1(merchant, mode, "GET", "/balances", {})) as { data: BalanceRow[] }).data }))),
        listPayments(deps, merchant, {}, undefined, 10),
        Promise.all(
          MODES.map(async (mode) =>
            ((await deps.v1(merchant, mode, "GET", "/webhook-endpoints", {})) as { data: Array<{ id: string; url: string; status: string }> }).data
              .filter((endpoint) => endpoint.status !== "enabled")
              .map((endpoint) => ({ mode, id: endpoint.id, url: endpoint.url })),
          ),
        ),
        Promise.all(MODES.map((mode) => deps.operatorReport({ mode }))),
        deps.health().catch(() => null),
      ]);
      // The operator report spans every merchant: keep this merchant's entries only.
      const own = reports.map((report) => ({
        ...report,
        reversedDeposits: report.reversedDeposits.filter((deposit) => deposit.merchantId === merchant.id),
        strayDeposits: report.strayDeposits.filter((deposit) => deposit.merchantId === merchant.id),
      }));
      const body = overviewBody({ base: merchantBase(req), balances, recent: recent.rows, failingEndpoints: endpoints.flat(), reports: own, health });
      sendDashboardPage(res, 200, { title: "Overview", body, chrome: await chromeOf(req, "overview") });
    }),
  );

  router.get(
    "/m/:merchantId/payments",
    asyncHandler(async (req, res) => {
      const merchant = visitOf(req).merchant!;
      const text = (name: string) => (typeof req.query[name] === "string" && req.query[name] !== "" ? (req.query[name] as string) : undefined);
      const q = text("q")?.trim();
      const chrome = await chromeOf(req, "payments");
      if (q) {
        // A payment id, then a deposit address, then an order id or a transaction hash.
        const id = (await findPayment(deps, merchant, q)) ? q : await findPaymentByAddress(deps, merchant, q);
        const matches = id ? [] : await searchPayments(deps, merchant, q);
        const only = id ?? (matches.length === 1 ? matches[0]!.id : null);
        if (only) return res.redirect(303, `${merchantBase(req)}/payments/${encodeURIComponent(only)}`);
        const body = paymentsBody(merchantBase(req), { q }, matches, null);
        return sendDashboardPage(res, 200, { title: matches.length ? `Payments matching ${q}` : `No payment ${q}`, body, chrome });
      }
      const mode = text("mode");
      const filters: PaymentFilters = {
        status: text("status"),
        mode: mode === "live" || mode === "test" ? mode : undefined,
        chain: text("chain")?.toUpperCase(),
        createdFrom: text("from") && `${text("from")}T00:00:00Z`,
        createdTo: text("to") && `${text("to")}T00:00:00Z`,
      };
      let page: Awaited<ReturnType<typeof listPayments>>;
      try {
        page = await listPayments(deps, merchant, filters, text("cursor"), PAGE_SIZE);
      } catch (error) {
        if (error instanceof CodedError && error.status === 400) return sendProblem(res, 400, error.message, chrome);
        throw error;
      }
      const nextQuery = new URLSearchParams(
        Object.entries(req.query).filter((entry): entry is [string, string] => typeof entry[1] === "string" && entry[0] !== "cursor" && entry[0] !== "q"),
      );
      if (page.next) nextQuery.set("cursor", page.next);
      const body = paymentsBody(merchantBase(req), filters, page.rows, page.next ? `${merchantBase(req)}/payments?${nextQuery}` : null);
      sendDashboardPage(res, 200, { title: "Payments", body, chrome });
    }),
  );

  const showPayment = async (req: Request, res: Response, status: number, message: { tone: "ok" | "error"; text: string } | null) => {
    const { user, merchant } = visitOf(req);
    const found = await findPayment(deps, merchant!, String(req.params.paymentId));
    if (!found) return sendProblem(res, 404, NOT_FOUND, await chromeOf(req, "payments"));
    const timeline = await paymentTimeline(deps, merchant!, found.mode, found.payment.id);
    const body = paymentBody({ base: merchantBase(req), ...found, timeline, explorers, csrf: user.role === "admin" ? csrf.issue(user) : null, message });
    sendDashboardPage(res, status, { title: `Payment ${found.payment.id}`, body, chrome: await chromeOf(req, "payments") });
  };

  router.get(
    "/m/:merchantId/payments/:paymentId",
    asyncHandler((req, res) => showPayment(req, res, 200, null)),
  );

  router.post(
    "/m/:merchantId/payments/:paymentId/refund",
    asyncHandler(async (req, res) => {
      const merchant = visitOf(req).merchant!;
      const found = await findPayment(deps, merchant, String(req.params.paymentId));
      if (!found) return sendProblem(res, 404, NOT_FOUND, await chromeOf(req, "payments"));
      const body = req.body as Record<string, string | undefined>;
      try {
        // The dashboard user is the refund's requester: another user must approve it if it is held.
        const refund = (await deps.v1(
          merchant,
          found.mode,
          "POST",
          "/refunds",
          { paymentId: found.payment.id, address: body.address ?? "", ...(body.amount ? { amount: body.amount } : {}) },
          actorOf(visitOf(req).user),
        )) as { id: string; amount: string; currency: string };
        await showPayment(req, res, 200, { tone: "ok", text: `Refund ${refund.id} of ${refund.amount} ${refund.currency} started.` });
      } catch (error) {
        if (!(error instanceof CodedError) || error.status >= 500) throw error;
        await showPayment(req, res, error.status, { tone: "error", text: error.message });
      }
    }),
  );

  const showWebhooks = async (req: Request, res: Response, status: number, message: { tone: "ok" | "error"; text: string } | null) => {
    const { user, merchant } = visitOf(req);
    const text = (name: string) => (typeof req.query[name] === "string" && req.query[name] !== "" ? (req.query[name] as string) : undefined);
    const deliveryStatus = text("status");
    const chrome = await chromeOf(req, "webhooks");
    let endpoints: EndpointRow[];
    let page: { rows: DeliveryRow[]; next: string | null };
    try {
      endpoints = (
        await Promise.all(MODES.map(async (mode) => ((await deps.v1(merchant!, mode, "GET", "/webhook-endpoints", {})) as { data: EndpointRow[] }).data))
      ).flat();
      page = await mergeModes<DeliveryRow>(undefined, text("cursor"), PAGE_SIZE, async (mode, after) => {
        const input = Object.fromEntries(Object.entries({ status: deliveryStatus, limit: String(PAGE_SIZE), cursor: after }).filter(([, value]) => value));
        return (await deps.v1(merchant!, mode, "GET", "/webhook-deliveries", input)) as { data: DeliveryRow[]; hasMore: boolean };
      });
    } catch (error) {
      if (error instanceof CodedError && error.status === 400) return sendProblem(res, 400, error.message, chrome);
      throw error;
    }
    const nextQuery = new URLSearchParams(deliveryStatus ? { status: deliveryStatus } : {});
    if (page.next) nextQuery.set("cursor", page.next);
    const body = webhooksBody({
      base: merchantBase(req),
      endpoints,
      deliveries: page.rows,
      status: deliveryStatus,
      nextHref: page.next ? `${merchantBase(req)}/webhooks?${nextQuery}` : null,
      csrf: user.role === "admin" ? csrf.issue(user) : null,
      message,
    });
    sendDashboardPage(res, status, { title: "Webhooks", body, chrome });
  };

  router.get(
    "/m/:merchantId/webhooks",
    asyncHandler((req, res) => showWebhooks(req, res, 200, null)),
  );

  router.post(
    "/m/:merchantId/webhooks/deliveries/:deliveryId/redeliver",
    asyncHandler(async (req, res) => {
      const merchant = visitOf(req).merchant!;
      const id = encodeURIComponent(String(req.params.deliveryId));
      // The delivery's mode is the one whose scope finds it; another merchant's id is found in neither.
      for (const mode of MODES) {
        const found = await deps.v1(merchant, mode, "GET", `/webhook-deliveries/${id}`, {}).catch((error: unknown) => {
          if (error instanceof CodedError && error.status < 500) return null;
          throw error;
        });
        if (!found) continue;
        try {
          await deps.v1(merchant, mode, "POST", `/webhook-deliveries/${id}/redeliver`, {});
          return await showWebhooks(req, res, 200, { tone: "ok", text: "The delivery was queued again." });
        } catch (error) {
          if (!(error instanceof CodedError) || error.status >= 500) throw error;
          return await showWebhooks(req, res, error.status, { tone: "error", text: error.message });
        }
      }
      sendProblem(res, 404, NOT_FOUND, await chromeOf(req, "webhooks"));
    }),
  );

  const showKeys = async (req: Request, res: Response, status: number, extra: { issued?: string; message?: { tone: "ok" | "error"; text: string } } = {}) => {
    const { user, merchant } = visitOf(req);
    const keys = await merchants.listApiKeys(context, merchant!.id);
    const body = keysBody({
      base: merchantBase(req),
      keys,
      csrf: user.role === "admin" ? csrf.issue(user) : null,
      issued: extra.issued ?? null,
      message: extra.message ?? null,
    });
    sendDashboardPage(res, status, { title: "API keys", body, chrome: await chromeOf(req, "keys") });
  };

  router.get(
    "/m/:merchantId/keys",
    asyncHandler((req, res) => showKeys(req, res, 200)),
  );

  router.post(
    "/m/:merchantId/keys",
    asyncHandler(async (req, res) => {
      const mode = (req.body as Record<string, unknown>).mode;
      if (mode !== "test" && mode !== "live") return showKeys(req, res, 400, { message: { tone: "error", text: 'Mode must be "test" or "live".' } });
      const issued = await merchants.issueApiKey(context, visitOf(req).merchant!.id, { mode: mode as Mode, by: actorOf(visitOf(req).user) });
      await showKeys(req, res, 200, { issued: issued.key, message: { tone: "ok", text: `Key ${issued.prefix}… issued.` } });
    }),
  );

  router.post(
    "/m/:merchantId/keys/:keyId/revoke",
    asyncHandler(async (req, res) => {
      const keys = await merchants.listApiKeys(context, visitOf(req).merchant!.id);
      // Another merchant's key id answers as unknown: revoking is scoped like reading.
      const key = keys.find((entry) => entry.id === req.params.keyId);
      if (!key) return sendProblem(res, 404, NOT_FOUND, await chromeOf(req, "keys"));
      await merchants.revokeApiKey(context, key.id, { by: actorOf(visitOf(req).user) });
      await showKeys(req, res, 200, { message: { tone: "ok", text: `Key ${key.prefix}… revoked.` } });
    }),
  );

  router.use((req, res) => {
    if (!visits.has(req)) return sendProblem(res, 404, NOT_FOUND, null);
    void problem(req, res, 404, NOT_FOUND);
  });
  router.use((error: unknown, _req: Request, res: Response, _next: express.NextFunction) => {
    const status = (error as { status?: number }).status;
    if (status === 408 || status === 413 || status === 400) return sendProblem(res, status === 408 ? 400 : status, "The form could not be read.", null);
    context.logger.error(`dashboard: ${error instanceof Error ? error.message : String(error)}`);
    sendProblem(res, 500, "Something went wrong. Try again in a moment.", null);
  });
  return router;
}
