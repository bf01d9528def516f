import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Request, Response } from "express";
import type { Storage } from "../../core/ports/storage/index";

/** The cookie naming a visitor's open invoice of one payment link (its path is the link's URL). */
const COOKIE = "ecp_link_invoice";
/** Where the signing key is kept: in storage, so that every instance on it signs alike. */
const KEY_NAME = "paylink:cookie-key";

/**
 * The cookie by which a payment link recognises a returning visitor: it names the invoice the
 * link made for this browser, signed (HMAC-SHA256 over link and invoice id) so that only
 * invoices this service handed to a visitor of this link are named back. HttpOnly (no script
 * reads it), SameSite=Lax (a post from another site does not carry it), Secure on HTTPS, and
 * scoped to the link's own path, so each link has its own and no other route sees it.
 */
export class VisitorCookie {
  private key: Promise<Buffer> | null = null;

  constructor(private readonly storage: Storage) {}

  /** The invoice id the request's cookie names for `linkId`, when its signature holds; else null. */
  async read(req: Request, linkId: string): Promise<string | null> {
    const value = cookieValue(req.get("cookie"), COOKIE);
    const dot = value?.lastIndexOf(".") ?? -1;
    if (!value || dot <= 0) return null;
    const invoiceId = value.slice(0, dot);
    const given = Buffer.from(value.slice(dot + 1));
    const expected = Buffer.from(await this.sign(linkId, invoiceId));
    return given.length === expected.length && timingSafeEqual(given, expected) ? invoiceId : null;
  }

  /** Remembers `invoiceId` for this link's visitor until the invoice expires; Secure when the public origin (`httpsOrigin`) or the request is HTTPS. */
  async write(req: Request, res: Response, linkId: string, invoiceId: string, expiresAt: number, now: number, httpsOrigin: boolean): Promise<void> {
    res.cookie(COOKIE, `${invoiceId}.${await this.sign(linkId, invoiceId)}`, {
      path: `${req.baseUrl}/pay/link/${linkId}`,
      httpOnly: true,
      sameSite: "lax",
      secure: httpsOrigin || req.secure,
      maxAge: Math.max(0, expiresAt - now),
      encode: String, // the value is ids, '.' and base64url: nothing to escape
    });
  }

  private async sign(linkId: string, invoiceId: string): Promise<string> {
    const key = await (this.key ??= this.loadKey().catch((error: unknown) => {
      this.key = null; // Try again next time: the storage may be back.
      throw error;
    }));
    return createHmac("sha256", key).update(`${linkId}:${invoiceId}`).digest("base64url");
  }

  /** The signing key, made once per storage (the first instance to need it stores it; the others read it). */
  private async loadKey(): Promise<Buffer> {
    const stored = await this.storage.getCursor(KEY_NAME);
    if (stored) return Buffer.from(stored, "base64url");
    const made = await this.storage.transaction(async (tx) => {
      const existing = await tx.lockCursor(KEY_NAME);
      if (existing) return existing;
      const fresh = randomBytes(32).toString("base64url");
      await tx.setCursor(KEY_NAME, fresh);
      return fresh;
    });
    return Buffer.from(made, "base64url");
  }
}

/** One cookie's value from a Cookie header, or null (no parser is assumed in the host app). */
function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}
