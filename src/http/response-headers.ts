import type express from "express";

/**
 * The two headers of every JSON answer: `nosniff`, so that no answer (an error echoing a
 * client's text, say) is ever sniffed into HTML, and `no-store`, since JSON answers carry
 * account data or errors that a shared cache must not keep.
 */
export function setJsonHeaders(res: express.Response): void {
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Cache-Control", "no-store");
}

/** Paths whose every answer is JSON: the two APIs and the OpenAPI document. */
const JSON_PATHS = /^\/(?:api\/v1|v1|api\/openapi)(?:\/|$)/;
/** Other paths the router answers itself: the reference page and its assets, hosted pages and payment links. */
const OWN_PATHS = /^\/(?:api(?:\/|$)|pay\/(?:inv_|link\/))/;

/**
 * `X-Content-Type-Options: nosniff` on everything the router answers, so that no answer (an
 * error echoing a client's text, say) is ever sniffed into HTML; and `Cache-Control: no-store`
 * on every JSON answer, which carries account data or errors that must not be kept by a shared
 * cache. HTML pages keep their own policy (the hosted page sends no-store itself; the API
 * reference and its assets are public and may be cached), but a JSON answer among them (the
 * page's status endpoint, an /api 404) still gets no-store. Paths the router leaves to the host
 * are not touched.
 */
export const responseHeaders: express.RequestHandler = (req, res, next) => {
  if (JSON_PATHS.test(req.path)) {
    setJsonHeaders(res);
  } else if (OWN_PATHS.test(req.path)) {
    res.setHeader("X-Content-Type-Options", "nosniff");
    const writeHead = res.writeHead;
    // Set just before the head goes out, when the answer's type is known.
    res.writeHead = function (this: express.Response, ...args: unknown[]) {
      if (/json/i.test(String(this.getHeader("Content-Type") ?? ""))) this.setHeader("Cache-Control", "no-store");
      return (writeHead as (...inner: unknown[]) => express.Response).apply(this, args);
    } as typeof res.writeHead;
  }
  next();
};
