import express, { type Request, type Router } from "express";
import type { Logger } from "../../core/ports/logger";
import { PaymentError } from "../../errors";
import { errorHandler } from "../error-handler";
import { buildOpenApiDocument, type MountedApi, type OpenApiDocument } from "../openapi";
import { REFERENCE_ASSETS, referenceAssetRoot } from "./reference-assets";

/**
 * The API reference, public like any API documentation: `GET /api/openapi` (the OpenAPI 3.1
 * document) and `GET /api` (an interactive page). The page is Swagger UI, its files shipped
 * inside this package (reference-assets.ts says why), with a Content-Security-Policy that lets
 * it load nothing from another origin: no CDN, no fonts, no validator badge, no analytics.
 */

const ASSETS = new Set(REFERENCE_ASSETS);

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI (React) sets style attributes; its icons are data: SVGs in the stylesheet.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  // The document, and "Try it out" against this same origin.
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Starts Swagger UI; a file, not an inline script, so the CSP needs no 'unsafe-inline' for scripts. */
const START_SCRIPT = `window.addEventListener("load", function () {
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.getAttribute("data-document"),
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: false,
    persistAuthorization: false,
    defaultModelsExpandDepth: 0,
    docExpansion: "list",
    filter: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout"
  });
});
`;

/**
 * On a narrow screen Swagger UI keeps a tag's name, description and arrow on one flex row, so
 * a long tag name squeezes its description to a column a few characters wide: there, the
 * description goes to a line of its own under the name, at full width.
 */
const STYLE = `html, body { margin: 0; padding: 0; background: #fff; }
.swagger-ui .information-container { padding-top: 8px; }
@media (max-width: 600px) {
  .swagger-ui .opblock-tag { flex-wrap: wrap; padding: 10px 0; }
  .swagger-ui .opblock-tag > a.nostyle { flex: 1 1 0; min-width: 0; overflow-wrap: anywhere; }
  .swagger-ui .opblock-tag small { flex: 1 0 100%; order: 3; padding: 4px 10px 0; }
  .swagger-ui .opblock-tag .expand-operation { order: 2; }
}
`;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

function page(base: string): string {
  const at = (file: string) => escapeHtml(`${base}/api/assets/${file}`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>express-crypto-pay API reference</title>
<link rel="icon" type="image/png" href="${at("favicon-32x32.png")}">
<link rel="stylesheet" href="${at("swagger-ui.css")}">
<link rel="stylesheet" href="${at("reference.css")}">
</head>
<body>
<div id="swagger-ui" data-document="${escapeHtml(`${base}/api/openapi`)}"></div>
<script src="${at("swagger-ui-bundle.js")}"></script>
<script src="${at("reference.js")}"></script>
</body>
</html>
`;
}

/** Where the host mounted the payment router: this router's base minus its own `/api`. */
const mountBase = (req: Request) => req.baseUrl.replace(/\/api$/, "");

/** The documents already served, by server URL: one per origin the router is reached under, in practice one or two. */
class DocumentCache {
  private readonly texts = new Map<string, string>();
  constructor(private readonly document: OpenApiDocument) {}

  text(server: string): string {
    let text = this.texts.get(server);
    if (text === undefined) {
      const { openapi, info, ...rest } = this.document;
      text = JSON.stringify({ openapi, info, servers: [{ url: server }], ...rest });
      if (this.texts.size >= 16) this.texts.clear(); // a forged Host header must not grow this forever
      this.texts.set(server, text);
    }
    return text;
  }
}

/** What `mountApiReference` built for one router, for tests that compare it with the mounted routes. */
export interface ApiReference {
  apis: readonly MountedApi[];
  document: OpenApiDocument;
}

const references = new WeakMap<Router, ApiReference>();

/** The reference mounted on this payment router, if any. */
export function apiReferenceOf(router: Router): ApiReference | undefined {
  return references.get(router);
}

/**
 * Builds the document once, from the route tables as they are now, and mounts `/api`,
 * `/api/openapi` and `/api/assets/*` on `router`. Any other path under `/api` answers the
 * error object (404), never the host app: `/api` is the service's prefix.
 * Mount it after `/api/v1`, which keeps its own dispatcher.
 */
export function mountApiReference(router: Router, apis: readonly MountedApi[], options: { publicUrl?: string | undefined; logger: Logger }): void {
  const document = buildOpenApiDocument(apis);
  references.set(router, { apis, document });
  const cache = new DocumentCache(document);
  const assetRoot = referenceAssetRoot();
  if (assetRoot === null) {
    options.logger.warn(
      "express-crypto-pay: the API reference's Swagger UI files are missing (dist/swagger-ui/ of the package; a bundler that inlined the library leaves them behind): GET /api answers, but its page cannot render. Copy node_modules/express-crypto-pay/dist/swagger-ui/ to a swagger-ui/ folder beside the bundle.",
    );
  }
  const api = express.Router();

  api.get("/openapi", (req, res) => {
    const origin = options.publicUrl?.replace(/\/+$/, "") ?? `${req.protocol}://${req.get("host")}`;
    res.setHeader("Access-Control-Allow-Origin", "*"); // public and credential-free: let other tools fetch it
    res.type("json").send(cache.text(`${origin}${mountBase(req)}`));
  });

  api.get("/", (req, res) => {
    res.setHeader("Content-Security-Policy", CSP);
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Referrer-Policy", "no-referrer");
    res.type("html").send(page(mountBase(req)));
  });

  api.get("/assets/reference.js", (_req, res) => {
    res.type("js").setHeader("Cache-Control", "public, max-age=3600").send(START_SCRIPT);
  });
  api.get("/assets/reference.css", (_req, res) => {
    res.type("css").setHeader("Cache-Control", "public, max-age=3600").send(STYLE);
  });
  api.get("/assets/:file", (req, res, next) => {
    const file = req.params.file;
    if (!ASSETS.has(file) || assetRoot === null) return next();
    res.sendFile(file, { root: assetRoot, maxAge: "1d", headers: { "X-Content-Type-Options": "nosniff" } }, (error) => {
      if (error && !res.headersSent) next(error);
    });
  });

  api.all(["/openapi", "/"], (req, res) => {
    res.set("Allow", "GET, HEAD");
    throw new PaymentError("method_not_allowed", `${req.originalUrl.split("?")[0]} answers GET only.`);
  });

  api.use((req) => {
    throw new PaymentError("route_not_found", `No endpoint ${req.method} ${req.originalUrl.split("?")[0]}. The API reference is at GET ${mountBase(req)}/api.`);
  });

  router.use("/api", api, errorHandler(options.logger));
}
