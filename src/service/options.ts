import { z } from "zod";
import type { ChainAdapter } from "../core/ports/chain";
import type { PricingAdapter } from "../core/ports/pricing";
import type { Storage } from "../core/ports/storage/index";
import type { Logger } from "../core/ports/logger";
import type { HealthOptions } from "../core/health/report";
import type { CurrencyConfig } from "../currencies";
import type { WebhookDeliveryOptions } from "../delivery/sender";
import type { InProcessEventHandlers } from "../delivery/in-process";
import { EVENT_TYPES } from "../core/webhooks/records";
import type { PayoutApprovalRule } from "../core/merchants/records";
import { optionsError } from "../options-error";
import type { MetricsOptions } from "../ops/metrics";

/** How much a rate limit allows: `limit` actions per `windowSeconds`, refilled evenly. */
export interface RateLimit {
  /** Actions allowed at once (the bucket's size), and per window. */
  limit: number;
  /** The time over which `limit` actions are refilled, in seconds. */
  windowSeconds: number;
}

/**
 * Branding of the hosted payment pages. The options declare it (the service checks every option
 * once, and sits below the HTTP shell that draws the pages); http/pay-page/branding.ts draws it.
 */
export interface PayPageBranding {
  /** Shown above the card instead of the merchant record's name. */
  merchantName?: string;
  /** An https URL of the logo shown beside the name; the page's CSP allows images from its origin only. */
  logoUrl?: string;
  /** The colour of buttons and highlights, `#rrggbb`. Text drawn in it is darkened as needed to stay readable. */
  accentColor?: string;
}

/** `#rrggbb`, the one colour format accepted: no names, no functions, nothing CSS could read otherwise. */
export const ACCENT_COLOR = /^#[0-9a-fA-F]{6}$/;

/** Options of `createPaymentRouter` and `createPaymentService`. Every one has an embedded default. */
export interface PaymentRouterOptions {
  /**
   * Where everything is kept. Default: the embedded database (PGlite) in `dataDir`, which
   * survives restarts. `memoryStorage()` keeps nothing; `postgresStorage()` from
   * "express-crypto-pay/postgres" runs on a PostgreSQL server (several instances can share it).
   */
  storage?: Storage;
  /** Directory of the embedded database used when `storage` is not given. Default "./.data". */
  dataDir?: string;
  /**
   * The chains of live mode, such as `evmChain()` from "express-crypto-pay/evm": each coin and
   * network of the currency list is served by the adapter that supports it (two adapters
   * claiming one pair is a boot error). Default: none, and live operations that need a chain
   * answer 503. Test mode always uses the sandbox chain, which cannot be given here.
   */
  chains?: ChainAdapter[];
  /** One live chain: the same as `chains: [chain]`. */
  chain?: ChainAdapter;
  /** Exchange rates. Default: `staticPricing()`, a fixed table. */
  pricing?: PricingAdapter;
  /** Crypto currencies with their networks and limits. Default: `DEFAULT_CURRENCIES`. */
  currencies?: CurrencyConfig[];
  /** Fiat currencies invoices may be priced in, symbol -> decimals. Default: `DEFAULT_FIAT`. */
  fiat?: Record<string, number>;
  /** Public origin of the host app (e.g. "https://shop.example"), used for payment links. Default: the request's own origin. */
  publicUrl?: string;
  /**
   * Where the host mounts the router ("/payments" for `app.use("/payments", router)`). Links
   * built during a request take it from the request; the in-process API (`forMerchant`) has
   * none and uses this, after `publicUrl`. Default "/".
   */
  mountPath?: string;
  /** Largest accepted request body, in bytes or a string like "100kb". Default "100kb". */
  bodyLimit?: string | number;
  /**
   * How long the API waits for a request's whole body, in ms, before it answers 408 (40801)
   * and closes the connection: a body that never ends, or is shorter than its Content-Length,
   * would otherwise hold the request until the server's own timeout (Node's: 300 s). Default 30000.
   */
  bodyTimeoutMs?: number;
  /**
   * How often the background loops run, in ms, or false to run them only through `tick()`.
   * Each live chain, the sandbox, invoice expiry and idempotency-key cleanup run on schedules of
   * their own at this pace, so a hung node delays only its own chain. Default 5000.
   */
  backgroundIntervalMs?: number | false;
  /** Minutes after expiry during which a deposit reopens an invoice. Default 60. */
  lateWindowMinutes?: number;
  /** The clock. Default: `Date.now`. */
  now?: () => number;
  /** Where warnings and errors go. Default: `console`. */
  logger?: Logger;
  /**
   * Idempotency keys. `leaseMs`: how long a request holds its started key (default 60000, on
   * the storage's clock). A retry arriving while it is held gets 409; once it lapses (the
   * process died mid-request), a retry gets the committed answer or, if nothing committed,
   * runs the request. Raise it if creating requests can take longer (a slow price source).
   */
  idempotency?: { leaseMs?: number };
  /**
   * Your own handlers of payment events, by type: `{ "payment.completed": async (event, { id })
   * => ... }` (the event narrowed to its type). They get events through the same outbox as
   * webhooks: queued with the change that caused them, retried on the webhook schedule while
   * the handler throws, handled once per handler when it returns, after a restart too, and
   * listed in the delivery log (endpoint `we_in_process`). Make them idempotent on `id`.
   */
  on?: InProcessEventHandlers;
  /**
   * Abuse limits of public payment links (`POST /pay/link/:id`, which needs no key): how many
   * invoices one client (`perClient`, by `req.ip`, so set Express's `trust proxy` behind a proxy)
   * and one link (`perLink`, all clients together) may create, each `{ limit, windowSeconds }`
   * or false for none. Defaults: 10 per client and 100 per link per 600 s. Past a limit the
   * payer gets a 429 page with Retry-After. Limits are counted per process. A visitor who
   * comes back while their invoice is still open is sent to it and counts nothing
   * (docs/payment-links.md).
   */
  paymentLinks?: {
    perClient?: RateLimit | false;
    perLink?: RateLimit | false;
  };
  /**
   * The merchant's look on the hosted payment pages: `merchantName` (shown above the card
   * instead of the merchant record's name), `logoUrl` (an https URL; the page's CSP then allows
   * images from that origin only) and `accentColor` (`#rrggbb`; text in it is darkened as needed
   * to stay readable). Default: the merchant's name, no logo, the built-in blue (docs/hosted-page.md).
   */
  payPage?: PayPageBranding;
  /**
   * Payout controls. `approval: { above, currency }`: a payout, withdrawal or refund whose amount
   * is above `above` (a decimal string) in `currency` (a fiat currency, priced at the current
   * rate, or a coin) is debited but held AWAITING_APPROVAL until someone other than its requester
   * approves it (`payments.admin.approvePayout`); a merchant's own threshold
   * (`payments.admin.setPayoutApproval`) replaces this one. Default: no approval (docs/money-controls.md).
   * `allowlist: { coolingOffHours }`: how long after its approval an address of a merchant's
   * payout allowlist becomes usable (default 24; 0 to 720). Each merchant turns its allowlist on
   * with `payments.admin.setAllowlist`.
   */
  payouts?: { approval?: PayoutApprovalRule | null; allowlist?: { coolingOffHours?: number } };
  /**
   * Thresholds of `payments.health()`: `nodeDownAfterMs` (how long a live chain's node may not
   * answer before it is unhealthy; default 60000), `maxLagSeconds` (how far its scanner may lag
   * the node's head, in seconds of blocks; default 600), `timeoutMs` (each probe's limit; default 2000).
   */
  health?: HealthOptions;
  /** Webhook delivery: retry schedule, timeouts, concurrency (in all and per endpoint), leases, private-address policy and host lookup, rotation overlap. */
  webhooks?: WebhookDeliveryOptions & {
    /** How long a rotated-out endpoint secret keeps signing, in minutes. Default 1440 (24 h). */
    rotationOverlapMinutes?: number;
  };
  /**
   * Prometheus metrics for `payments.metricsHandler` (needs the optional prom-client package).
   * Default: on when prom-client is installed, on a registry private to this router, names
   * prefixed `express_crypto_pay_`. `{ registry, prefix }` puts them on the host's registry
   * (two routers on one registry need different prefixes); false turns them off.
   */
  metrics?: MetricsOptions | false;
  /**
   * OpenTelemetry spans (needs the optional @opentelemetry/api package and a tracer provider
   * the host registers): one per API request, background round, chain poll, payout broadcast
   * and webhook attempt. Default true; false turns them off.
   */
  tracing?: boolean;
}

const method = (name: string) => z.custom<(...args: never[]) => unknown>((value) => typeof value === "function", { error: `must have a ${name}() method` });

const adapter = (methods: string[]) => z.looseObject(Object.fromEntries(methods.map((name) => [name, method(name)])));

const chainAdapter = adapter(["supports", "createAddress", "isValidAddress", "pollDeposits", "sendPayout", "getPayoutStatus"]);

const rateLimit = z.union(
  [
    z.strictObject({
      limit: z.int().min(1).max(1_000_000),
      windowSeconds: z
        .number()
        .positive()
        .max(7 * 24 * 3600),
    }),
    z.literal(false),
  ],
  {
    error: "must be { limit, windowSeconds } (a whole number from 1, and seconds up to a week) or false",
  },
);

const optionsSchema = z.strictObject({
  storage: adapter(["transaction", "getInvoice", "findApiKeyByHash", "close"]).optional(),
  dataDir: z.string().min(1).optional(),
  chain: chainAdapter.optional(),
  chains: z.array(chainAdapter).optional(),
  pricing: adapter(["getRate"]).optional(),
  currencies: z.array(z.looseObject({ symbol: z.string() })).optional(),
  fiat: z.record(z.string(), z.int()).optional(),
  publicUrl: z
    .url({ protocol: /^https?$/, error: "must be an absolute http(s) URL such as https://shop.example" })
    .refine((value) => !/[?#]/.test(value), { error: "must not have a query or fragment" })
    .optional(),
  mountPath: z
    .string()
    .regex(/^\/[\w\-./~%]*$/, { error: 'must be a path such as "/payments"' })
    .optional(),
  bodyLimit: z.union([z.int().positive(), z.string().regex(/^\d+(b|kb|mb)?$/i, { error: 'must be bytes or a size like "100kb"' })]).optional(),
  bodyTimeoutMs: z
    .int()
    .min(1)
    .max(10 * 60 * 1000)
    .optional(),
  backgroundIntervalMs: z.union([z.int().min(10), z.literal(false)]).optional(),
  lateWindowMinutes: z
    .number()
    .min(0)
    .max(7 * 24 * 60)
    .optional(),
  now: method("now").optional(),
  logger: adapter(["warn", "error"]).optional(),
  idempotency: z
    .strictObject({
      leaseMs: z
        .int()
        .min(1)
        .max(24 * 60 * 60 * 1000),
    })
    .partial()
    .optional(),
  on: z.strictObject(Object.fromEntries(EVENT_TYPES.map((type) => [type, method("call").optional()]))).optional(),
  paymentLinks: z
    .strictObject({
      perClient: rateLimit,
      perLink: rateLimit,
    })
    .partial()
    .optional(),
  payPage: z
    .strictObject({
      merchantName: z.string().trim().min(1).max(100),
      logoUrl: z
        .url({ protocol: /^https$/, error: "must be an absolute https URL of an image, such as https://shop.example/logo.png" })
        .refine((value) => !new URL(value).username && !new URL(value).password, { error: "must not carry a user name or password" }),
      accentColor: z.string().regex(ACCENT_COLOR, { error: 'must be a colour as #rrggbb, such as "#0a7c66"' }),
    })
    .partial()
    .optional(),
  // The currency and the amount's decimals are checked against the currency list in the router.
  payouts: z
    .strictObject({
      approval: z
        .strictObject({
          above: z.string().regex(/^\d+(\.\d+)?$/, { error: 'must be a decimal string such as "1000"' }),
          currency: z.string(),
        })
        .nullable(),
      allowlist: z.strictObject({ coolingOffHours: z.number().min(0).max(720).optional() }),
    })
    .partial()
    .optional(),
  health: z
    .strictObject({
      nodeDownAfterMs: z
        .int()
        .min(0)
        .max(24 * 60 * 60 * 1000),
      maxLagSeconds: z
        .number()
        .min(0)
        .max(30 * 24 * 3600),
      timeoutMs: z.int().min(1).max(60_000),
    })
    .partial()
    .optional(),
  webhooks: z
    .strictObject({
      retrySchedule: z.array(z.int().min(0)).max(50),
      timeoutMs: z.int().min(1).max(120_000),
      jitter: z.number().min(0).max(1),
      inProcessRetryMaxMs: z.int().min(0),
      concurrency: z.int().min(1).max(10_000),
      concurrencyPerEndpoint: z.int().min(1).max(1000),
      leaseMs: z
        .int()
        .min(1000)
        .max(24 * 60 * 60 * 1000),
      intervalMs: z.union([z.int().min(10), z.literal(false)]),
      allowPrivateUrls: z.boolean(),
      lookup: z.custom<(...args: never[]) => unknown>((value) => typeof value === "function", {
        error: "must be a function (hostname) => Promise<Array<{ address, family }>>",
      }),
      rotationOverlapMinutes: z
        .number()
        .min(0)
        .max(30 * 24 * 60),
    })
    .partial()
    .optional(),
  metrics: z
    .union([
      z.strictObject({
        registry: adapter(["metrics", "getSingleMetric"]).optional(),
        prefix: z
          .string()
          .regex(/^[a-zA-Z_:][a-zA-Z0-9_:]*$/, { error: "must be a valid start of a Prometheus metric name, such as shop_payments_" })
          .optional(),
      }),
      z.literal(false),
    ])
    .optional(),
  tracing: z.boolean().optional(),
});

/**
 * Checks the options once, at start-up: a misconfigured service throws here with every problem
 * named, instead of failing on some later request. `caller` starts each message ("createPaymentRouter").
 */
export function checkOptions(options: unknown, caller: string): PaymentRouterOptions {
  const result = optionsSchema.safeParse(options ?? {});
  // The router's messages read "mountPath: must be ...", the adapters' "rpcUrl must be ...".
  if (!result.success) throw optionsError(caller, result.error, ": ", optionsSchema);
  if (result.data.storage && result.data.dataDir) {
    throw new TypeError(`${caller}: dataDir is where the default storage keeps its files; with storage given it would be ignored, so pass one or the other`);
  }
  if (result.data.chain && result.data.chains) {
    throw new TypeError(`${caller}: pass live chains as \`chains: [...]\` or one as \`chain\`, not both`);
  }
  return options as PaymentRouterOptions;
}
