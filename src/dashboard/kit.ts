import type { Request, Response } from "express";
import type { MerchantRecord } from "../core/merchants/records";
import { CodedError } from "../errors";
import type { CsrfTokens } from "./csrf";
import type { DashboardBackend } from "../service/dashboard-backend";
import type { FormCall } from "./data";
import { sendDashboardPage, sendProblem, type Chrome, type Section } from "./layout";
import type { DashboardUser, ExplorerTemplates } from "./options";
import type { SafeHtml } from "../html/escape";

/** The answer shown at the top of a page after an action: it worked, or why not. */
export interface Notice {
  tone: "ok" | "error";
  text: string;
}

/** What every section's routes share: who is visiting, how pages are framed, the form tokens. */
export interface DashboardKit {
  /** What every read and action goes through. */
  backend: DashboardBackend;
  explorers: Readonly<Record<string, ExplorerTemplates>>;
  /** The signed-in user of this request. */
  user(req: Request): DashboardUser;
  /** The merchant opened under /m/:merchantId (checked against the user's list before any route runs). */
  merchant(req: Request): MerchantRecord;
  /** The URL of the opened merchant's pages: `<mount>/m/<id>`. */
  merchantBase(req: Request): string;
  /** How the audit log and a payout's requester name this request's user: `dashboard:<user>`. */
  actor(req: Request): string;
  /**
   * The call of an action that creates something: the user as its requester, and the form's
   * one-time key (see `onceField`) as the idempotency key, so a double click or a form sent
   * again after a lost answer replays the first answer instead of paying twice.
   */
  creating(req: Request): FormCall;
  /** A CSRF token for this request's user when they may act (admins), else null (no forms shown). */
  formToken(req: Request): string | null;
  /** A query-string value, or undefined when absent, empty or repeated. */
  text(req: Request, name: string): string | undefined;
  /** Sends a page in the dashboard's frame, with `section` marked in the navigation. */
  send(req: Request, res: Response, status: number, page: { title: string; body: SafeHtml; section?: Section }): Promise<void>;
  /** Sends a short error page (403, 404, 400) in the dashboard's frame. */
  problem(req: Request, res: Response, status: number, message: string, section?: Section): Promise<void>;
  /** Sends the 404 every record the user may not see answers, exactly as if it did not exist. */
  notFound(req: Request, res: Response, section?: Section): Promise<void>;
  /**
   * Runs an action or a read through the API: a refusal (a 4xx `CodedError`) becomes a notice
   * with its status and the API's message; anything else is rethrown (a 500 page).
   */
  attempt<T>(work: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; status: number; notice: Notice }>;
}

/** The message of every 404: a record another merchant owns is not told apart from a missing one. */
export const NOT_FOUND = "There is nothing here, or you may not see it.";

/** The shape of a form's one-time key: a random UUID. */
const ONCE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Builds the kit of one dashboard router. */
export function createKit(
  backend: DashboardBackend,
  csrf: CsrfTokens,
  explorers: Readonly<Record<string, ExplorerTemplates>>,
  visitOf: (req: Request) => { user: DashboardUser; merchant: MerchantRecord | null },
  chromeOf: (req: Request, current?: Section) => Promise<Chrome>,
): DashboardKit {
  const chromeOrNull = (req: Request, section?: Section) => chromeOf(req, section).catch(() => null);
  const kit: DashboardKit = {
    backend,
    explorers,
    user: (req) => visitOf(req).user,
    merchant: (req) => visitOf(req).merchant!,
    merchantBase: (req) => `${req.baseUrl}/m/${encodeURIComponent(visitOf(req).merchant!.id)}`,
    actor: (req) => `dashboard:${visitOf(req).user.user}`,
    creating: (req) => {
      const once = (req.body as Record<string, unknown> | undefined)?._once;
      return { actor: kit.actor(req), idempotencyKey: typeof once === "string" && ONCE.test(once) ? once : undefined };
    },
    formToken: (req) => {
      const { user } = visitOf(req);
      return user.role === "admin" ? csrf.issue(user) : null;
    },
    text: (req, name) => {
      const value = req.query[name];
      return typeof value === "string" && value !== "" ? value : undefined;
    },
    send: async (req, res, status, page) => sendDashboardPage(res, status, { title: page.title, body: page.body, chrome: await chromeOf(req, page.section) }),
    problem: async (req, res, status, message, section) => sendProblem(res, status, message, await chromeOrNull(req, section)),
    notFound: (req, res, section) => kit.problem(req, res, 404, NOT_FOUND, section),
    attempt: async (work) => {
      try {
        return { ok: true, value: await work() };
      } catch (error) {
        if (!(error instanceof CodedError) || error.status >= 500) throw error;
        return { ok: false, status: error.status, notice: { tone: "error", text: error.message } };
      }
    },
  };
  return kit;
}
