import { createHmac, timingSafeEqual } from "node:crypto";
import type { DashboardUser } from "./options";

/** How long a form's token stays valid: a page left open over lunch still submits. */
const TOKEN_HOURS = 12;

/**
 * CSRF tokens bound to the signed-in user. The dashboard has no session of its own (the host's
 * login is in front of it), so a token is an HMAC, under the router's secret, of the user, role
 * and the hour it was issued: another user's token, an old one, or one made up never matches,
 * and nothing is stored. A cross-site page cannot read the token (CSP and same-origin), so it
 * cannot post a form that carries it.
 */
export class CsrfTokens {
  constructor(
    private readonly secret: string | Uint8Array,
    private readonly now: () => number,
  ) {}

  /** A token for the forms of one page. */
  issue(user: DashboardUser): string {
    const hour = Math.floor(this.now() / 3_600_000);
    return `${hour}.${this.mac(user, hour)}`;
  }

  /** Whether a posted token was issued to this user in the last hours. */
  verify(user: DashboardUser, token: unknown): boolean {
    if (typeof token !== "string") return false;
    const match = /^(\d{1,10})\.([A-Za-z0-9_-]{43})$/.exec(token);
    if (!match) return false;
    const hour = Number(match[1]);
    const age = Math.floor(this.now() / 3_600_000) - hour;
    if (age < 0 || age >= TOKEN_HOURS) return false;
    return timingSafeEqual(Buffer.from(match[2]!), Buffer.from(this.mac(user, hour)));
  }

  private mac(user: DashboardUser, hour: number): string {
    return createHmac("sha256", this.secret).update(`dashboard-csrf\n${user.user}\n${user.role}\n${hour}`).digest("base64url");
  }
}
