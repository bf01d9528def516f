import type { Request } from "express";
import type { CoreContext } from "../core/context";
import { authenticate, type Caller } from "../core/merchants/merchants";
import { PaymentError } from "../errors";

/**
 * Bearer auth with `sk_test_` / `sk_live_` keys. The mode comes from the key, never from the
 * request, so a test key cannot reach live data by any parameter.
 */
export function apiKeyAuthenticator(context: CoreContext): (req: Request) => Promise<Caller> {
  return async (req) => {
    const header = req.headers.authorization;
    if (!header) {
      throw new PaymentError("invalid_api_key", "No API key: send the header `Authorization: Bearer sk_test_...` (or sk_live_...).");
    }
    const match = /^Bearer +(\S+) *$/i.exec(header);
    if (!match) throw new PaymentError("invalid_api_key", "The Authorization header must be `Bearer <API key>`.");
    const caller = await authenticate(context, match[1]!);
    if (!caller) throw new PaymentError("invalid_api_key", "The API key is invalid or was revoked.");
    return caller;
  };
}
