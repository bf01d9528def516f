import { refuseUnknownOptions } from "../options-error";
import type { Request } from "express";

/** What a dashboard user may do: `admin` everything, `viewer` read only (every action answers 403). */
export type DashboardRole = "admin" | "viewer";

/** Who the host says is signed in, as `authorize` answers it. */
export interface DashboardUser {
  /** A stable name of the user (an email, a user id): shown in the header and bound into the CSRF token. */
  user: string;
  /** `admin` may act; `viewer` only reads. */
  role: DashboardRole;
  /** The merchants this user may see: "all", or their ids. Any other merchant's page or record answers 404. */
  merchants: "all" | readonly string[];
}

/** Block-explorer URL templates of one network: `{txHash}` and `{address}` are replaced (URL-encoded). */
export interface ExplorerTemplates {
  /** A transaction's page, with `{txHash}`. */
  tx?: string;
  /** An address's page, with `{address}`. */
  address?: string;
}

/** Options of `payments.dashboard()`. */
export interface DashboardOptions {
  /**
   * Says who the request's user is, from the host's own login (its session, a header its proxy
   * sets): null answers 403. Called on every request, before anything is read.
   */
  authorize: (req: Request) => DashboardUser | null | Promise<DashboardUser | null>;
  /**
   * The key of the CSRF tokens (at least 32 bytes). Default: random per router, so every
   * instance behind a load balancer needs the same one given here, and a restart makes open
   * forms ask to be sent again.
   */
  csrfSecret?: string | Uint8Array;
  /** Block-explorer links per network code ("ETH", "BTC", "TRX"), e.g. `{ ETH: { tx: "https://etherscan.io/tx/{txHash}" } }`. */
  explorers?: Readonly<Record<string, ExplorerTemplates>>;
}

/** Refuses options the dashboard cannot run with, when it is created. */
export function checkDashboardOptions(options: DashboardOptions): void {
  if (typeof options?.authorize !== "function") throw new TypeError("dashboard: authorize must be a function (req) => ({ user, role, merchants }) or null");
  refuseUnknownOptions("dashboard", options, ["authorize", "csrfSecret", "explorers"]);
  if (options.csrfSecret !== undefined && Buffer.byteLength(options.csrfSecret as string) < 32) {
    throw new TypeError("dashboard: csrfSecret must be at least 32 bytes");
  }
  for (const [network, templates] of Object.entries(options.explorers ?? {})) {
    for (const [kind, template] of Object.entries(templates)) {
      const placeholder = kind === "tx" ? "{txHash}" : "{address}";
      if (typeof template !== "string" || !/^https?:\/\//.test(template) || !template.includes(placeholder)) {
        throw new TypeError(`dashboard: explorers.${network}.${kind} must be an http(s) URL containing ${placeholder}`);
      }
    }
  }
}

/** Checks what `authorize` answered; a malformed answer is the host's bug, so it throws. */
export function checkUser(user: unknown): DashboardUser | null {
  if (user === null || user === undefined) return null;
  const candidate = user as DashboardUser;
  const merchantsOk = candidate.merchants === "all" || (Array.isArray(candidate.merchants) && candidate.merchants.every((id) => typeof id === "string"));
  if (typeof candidate.user !== "string" || candidate.user === "" || (candidate.role !== "admin" && candidate.role !== "viewer") || !merchantsOk) {
    throw new TypeError('dashboard: authorize must answer null or { user: string, role: "admin" | "viewer", merchants: "all" | string[] }');
  }
  return candidate;
}
