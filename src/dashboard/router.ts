import { PaymentError } from "../errors";
import { randomBytes } from "node:crypto";
import express, { type Request, type Response, type Router } from "express";
import type { MerchantRecord } from "../core/merchants/records";
import { asyncHandler } from "../express/async-handler";
import { formBodyReader } from "../express/form-body";
import { CsrfTokens } from "./csrf";
import type { DashboardBackend } from "../service/dashboard-backend";
import { createKit, NOT_FOUND, type DashboardKit } from "./kit";
import { sendDashboardPage, sendProblem, type Chrome, type Section } from "./layout";
import { checkDashboardOptions, checkUser, type DashboardOptions, type DashboardUser } from "./options";
import { chooseBody } from "./pages/choose";
import { approvalRoutes } from "./routes/approvals";
import { auditRoutes } from "./routes/audit";
import { balanceRoutes } from "./routes/balances";
import { exportRoutes } from "./routes/exports";
import { addressRoutes } from "./routes/addresses";
import { keyRoutes } from "./routes/keys";
import { linkRoutes } from "./routes/links";
import { moneyListRoutes } from "./routes/money-lists";
import { overviewRoutes } from "./routes/overview";
import { paymentRoutes } from "./routes/payments";
import { payoutRoutes } from "./routes/payouts";
import { webhookRoutes } from "./routes/webhooks";

/** Per request: who is signed in and, under /m/:merchantId, the merchant they opened. */
interface Visit {
  user: DashboardUser;
  merchant: MerchantRecord | null;
}

/** Most merchants the switcher lists for a user who may see all of them (more: they open one by id). */
const SWITCHER_LIMIT = 50;

/** Each section's routes, mounted in this order under the merchant guard. */
const SECTION_ROUTES: ReadonlyArray<(router: Router, kit: DashboardKit) => void> = [
  overviewRoutes,
  paymentRoutes,
  webhookRoutes,
  keyRoutes,
  payoutRoutes,
  moneyListRoutes,
  linkRoutes,
  approvalRoutes,
  balanceRoutes,
  auditRoutes,
  exportRoutes,
  addressRoutes,
];

/**
 * The merchant dashboard: server-rendered pages the host mounts behind its own login. Every
 * request is authorized first; every merchant page checks the user may see that merchant, and
 * every form post checks the role and the CSRF token before anything changes. The sections'
 * own routes live in routes/, one file each.
 */
export function dashboardRouter(backend: DashboardBackend, options: DashboardOptions, bodyTimeoutMs: number): Router {
  checkDashboardOptions(options);
  const { admin } = backend;
  const csrf = new CsrfTokens(options.csrfSecret ?? randomBytes(32), backend.now);
  const visits = new WeakMap<Request, Visit>();
  const visitOf = (req: Request) => visits.get(req)!;
  const router = express.Router();
  // Room for a webhook endpoint's form: a URL of up to 2048 characters and every event type ticked.
  const readForm = formBodyReader(bodyTimeoutMs, { limit: "8kb", parameterLimit: 40 });
  const may = (user: DashboardUser, id: string) => user.merchants === "all" || user.merchants.includes(id);

  // A user who may see every merchant picks from a list while it is short; past that, by id.
  const allMerchants = async () => {
    // A storage without the operator lists (501): no list, each merchant is reached by id, as past the limit.
    const page = await admin.listMerchants({ limit: SWITCHER_LIMIT }).catch((error: unknown) => {
      if (error instanceof PaymentError && error.type === "storage_feature_unavailable") return null;
      throw error;
    });
    return !page || page.hasMore ? undefined : page.data.sort((a, b) => a.name.localeCompare(b.name));
  };
  const chromeOf = async (req: Request, current?: Section): Promise<Chrome> => {
    const { user, merchant } = visitOf(req);
    const list =
      user.merchants === "all"
        ? await allMerchants()
        : (await Promise.all(user.merchants.map((id) => admin.getMerchant(id)))).filter((entry) => entry !== null);
    return {
      base: req.baseUrl,
      user,
      merchant: merchant ? { id: merchant.id, name: merchant.name } : null,
      merchants: list?.map(({ id, name }) => ({ id, name })),
      current,
    };
  };
  const kit = createKit(backend, csrf, options.explorers ?? {}, visitOf, chromeOf);

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
      if (user.merchants !== "all" && user.merchants.length > 0) return res.redirect(303, `${req.baseUrl}/m/${encodeURIComponent(user.merchants[0]!)}`);
      sendDashboardPage(res, 200, { title: "Choose a merchant", body: chooseBody(req.baseUrl, user), chrome: await chromeOf(req) });
    }),
  );

  router.get("/switch", (req, res) => {
    const id = typeof req.query.merchant === "string" ? req.query.merchant : "";
    res.redirect(303, `${req.baseUrl}/m/${encodeURIComponent(id)}`);
  });

  router.use(
    "/m/:merchantId",
    asyncHandler(async (req, res, next) => {
      const visit = visitOf(req);
      const id = String(req.params.merchantId);
      const merchant = may(visit.user, id) ? await admin.getMerchant(id) : null;
      if (!merchant) return sendProblem(res, 404, NOT_FOUND, await chromeOf(req));
      visit.merchant = merchant;
      if (req.method !== "POST") return next();
      // Every action: read the form, then refuse viewers and posts without this user's token.
      readForm(req, res, (error?: unknown) => {
        if (error) return next(error);
        if (visit.user.role !== "admin") return void kit.problem(req, res, 403, "Viewers cannot change anything.");
        if (!csrf.verify(visit.user, (req.body as Record<string, unknown> | undefined)?._csrf)) {
          return void kit.problem(req, res, 403, "This form expired or did not come from this dashboard. Reload the page and try again.");
        }
        next();
      });
    }),
  );

  for (const mount of SECTION_ROUTES) mount(router, kit);

  router.use((req, res) => {
    if (!visits.has(req)) return sendProblem(res, 404, NOT_FOUND, null);
    void kit.notFound(req, res);
  });
  router.use((error: unknown, _req: Request, res: Response, _next: express.NextFunction) => {
    const status = (error as { status?: number }).status;
    if (status === 408 || status === 413 || status === 400) return sendProblem(res, status === 408 ? 400 : status, "The form could not be read.", null);
    backend.logger.error(`dashboard: ${error instanceof Error ? error.message : String(error)}`);
    sendProblem(res, 500, "Something went wrong. Try again in a moment.", null);
  });
  return router;
}
