/**
 * The example's own login in front of the merchant dashboard: one demo password, a login form,
 * and a session in an HMAC-signed cookie. A real host puts its existing login here (its session,
 * its users and their roles); the library has no users or passwords of its own.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import express, { type Express, type NextFunction, type Request, type Response } from "express";
import type { PaymentRouter } from "../../src/index";

const COOKIE = "demo_session";
/** A session lasts a working day; then the form asks again. */
const SESSION_MS = 8 * 60 * 60 * 1000;

/**
 * Mounts the login form at `${path}/login` (GET shows it, POST checks the password) and the
 * dashboard at `path`, open to whoever signed in, as an admin of every merchant. Sessions are
 * signed with a key random per process: a restart signs everyone out.
 */
export function mountDashboard(app: Express, payments: PaymentRouter, options: { path: string; password: string }): void {
  const { path, password } = options;
  const key = randomBytes(32);
  const sign = (value: string) => createHmac("sha256", key).update(value).digest("base64url");
  const same = (a: string, b: string) => {
    const [x, y] = [Buffer.from(a), Buffer.from(b)];
    return x.length === y.length && timingSafeEqual(x, y);
  };
  // Compared as HMACs of the same length, so the comparison tells nothing about the password's length.
  const passwordMac = sign(`password:${password}`);

  /** Whether the request carries a session cookie this process signed that has not expired. */
  const signedIn = (req: Request): boolean => {
    const cookie = (req.headers.cookie ?? "").split(/;\s*/).find((part) => part.startsWith(`${COOKIE}=`));
    const [expires = "", mac = ""] = (cookie?.slice(COOKIE.length + 1) ?? "").split(".");
    return same(mac, sign(`session:${expires}`)) && Number(expires) > Date.now();
  };

  const loginPage = (res: Response, status: number, error: string | null) => {
    // No script and one inline style under this response's nonce, as the dashboard's own pages.
    const nonce = randomBytes(16).toString("base64");
    res
      .status(status)
      .set({
        "Content-Security-Policy": `default-src 'none'; style-src 'nonce-${nonce}'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
        "Cache-Control": "no-store",
      })
      .type("html")
      .send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in - Demo shop</title>
<style nonce="${nonce}">
body{font:16px/1.5 system-ui,sans-serif;margin:0;padding:0 1rem;background:#f4f5f7;color:#1d2330}
main{box-sizing:border-box;max-width:26rem;margin:12vh auto;padding:2rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px #0002}
h1{font-size:1.4rem;margin:0 0 1rem}label{display:block;font-weight:600;margin-bottom:.25rem}
input{box-sizing:border-box;width:100%;padding:.6rem;font:inherit;border:1px solid #6b7280;border-radius:4px}
button{margin-top:1rem;width:100%;padding:.6rem;font:inherit;font-weight:600;color:#fff;background:#1f4fd1;border:0;border-radius:4px;cursor:pointer}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}.error{color:#a11;margin:0 0 1rem}
</style></head>
<body><main>
<h1>Demo shop: sign in</h1>
${error ? `<p class="error" role="alert">${error}</p>` : ""}<form method="post" action="${path}/login">
<label for="password">Dashboard password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Sign in</button>
</form>
</main></body></html>`);
  };

  app.get(`${path}/login`, (_req, res) => loginPage(res, 200, null));
  app.post(`${path}/login`, express.urlencoded({ extended: false, limit: "2kb" }), (req, res) => {
    const given = typeof req.body?.password === "string" ? req.body.password : "";
    if (!same(sign(`password:${given}`), passwordMac)) return loginPage(res, 401, "Wrong password.");
    const expires = String(Date.now() + SESSION_MS);
    // Not `secure`: the demo serves plain http on localhost. Behind https, add `secure: true`.
    res.cookie(COOKIE, `${expires}.${sign(`session:${expires}`)}`, { httpOnly: true, sameSite: "lax", path, maxAge: SESSION_MS });
    res.redirect(303, `${path}/`);
  });

  // Everything else under `path` needs the session: a visitor without one is sent to the form.
  const requireLogin = (req: Request, res: Response, next: NextFunction) => (signedIn(req) ? next() : res.redirect(303, `${path}/login`));
  app.use(path, requireLogin, payments.dashboard({ authorize: (req) => (signedIn(req) ? { user: "demo", role: "admin", merchants: "all" } : null) }));
}
