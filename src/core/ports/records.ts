/**
 * The records the domain keeps. Amounts are bigint smallest units of the record's asset;
 * times are epoch milliseconds. Storage adapters persist these shapes as they are.
 */

/** Sandbox (`sk_test_`) or live (`sk_live_`): every record belongs to exactly one. */
export type Mode = "test" | "live";

/** Invoice statuses (docs/merchant-api.md, "Invoice statuses"). */
export const INVOICE_STATUSES = ["PENDING", "CONFIRMING", "UNDER_PAID", "PAID", "FAILED", "EXPIRED"] as const;
/** One invoice status. */
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** Payment lifecycle event types (docs/merchant-api.md, "Events"). */
export const PAYMENT_EVENT_TYPES = [
  "payment.created",
  "payment.confirming",
  "payment.confirmed",
  "payment.completed",
  "payment.failed",
  "payment.expired",
  "payment.unexpected_deposit",
  "payment.reversed",
  "payment.deposit_dropped",
] as const;
/** One payment event type. */
export type PaymentEventType = (typeof PAYMENT_EVENT_TYPES)[number];

/**
 * Withdrawal event types (a payout that is not a refund): sent when it is debited, when the
 * chain confirms it, and when it fails (the debit is then credited back). A payout held for
 * approval sends `payout.awaiting_approval` when it is debited, then `payout.processing` once
 * approved, or `payout.rejected` (the debit credited back). Each is named after the status the
 * payout has in its data.
 */
export const PAYOUT_EVENT_TYPES = ["payout.processing", "payout.completed", "payout.failed", "payout.awaiting_approval", "payout.rejected"] as const;
/** One withdrawal event type. */
export type PayoutEventType = (typeof PAYOUT_EVENT_TYPES)[number];

/** The refund events named after a payout's step (and the status the refund then has). */
export const REFUND_PAYOUT_EVENT_TYPES = ["refund.processing", "refund.completed", "refund.failed", "refund.awaiting_approval", "refund.rejected"] as const;

// Refund claim links
/** The events of a refund claim link's own steps: held (AWAITING_CLAIM), claimed, cancelled, expired. */
export const REFUND_CLAIM_EVENT_TYPES = ["refund.created", "refund.claimed", "refund.cancelled", "refund.expired"] as const;

/**
 * Refund event types: the same lifecycle as a withdrawal, sent instead of its events for a refund.
 * A refund made as a claim link (no address yet) also sends `refund.created` when its amount is
 * held, `refund.claimed` when the payer gives an address (then `refund.processing` or
 * `refund.awaiting_approval`), or `refund.cancelled` / `refund.expired` when its hold goes back.
 */
export const REFUND_EVENT_TYPES = [...REFUND_PAYOUT_EVENT_TYPES, ...REFUND_CLAIM_EVENT_TYPES] as const;
/** One refund event type. */
export type RefundEventType = (typeof REFUND_EVENT_TYPES)[number];

/** Conversion event types: a conversion is atomic, so it only ever completes. */
export const CONVERSION_EVENT_TYPES = ["conversion.completed"] as const;
/** One conversion event type. */
export type ConversionEventType = (typeof CONVERSION_EVENT_TYPES)[number];

// Subscription events
/**
 * Subscription event types: created; renewed (a period's invoice was paid, for any period after
 * the first, or for the first when that payment brings a past_due subscription back); past_due
 * (the current period is unpaid past its grace days); cancelled (on request, by the payer, at the
 * end of a period it was set to end at, or unpaid when the next period began).
 */
export const SUBSCRIPTION_EVENT_TYPES = ["subscription.created", "subscription.renewed", "subscription.past_due", "subscription.cancelled"] as const;
/** One subscription event type. */
export type SubscriptionEventType = (typeof SUBSCRIPTION_EVENT_TYPES)[number];

/** Every event type the service sends: payments, withdrawals, refunds, conversions and subscriptions. */
export const EVENT_TYPES = [
  ...PAYMENT_EVENT_TYPES,
  ...PAYOUT_EVENT_TYPES,
  ...REFUND_EVENT_TYPES,
  ...CONVERSION_EVENT_TYPES,
  ...SUBSCRIPTION_EVENT_TYPES,
] as const;
/** One event type. */
export type EventType = (typeof EVENT_TYPES)[number];

/** A merchant: the owner of keys, invoices, balances and everything else. */
export interface MerchantRecord {
  id: string;
  name: string;
  /** Asset that payments are converted into when credited (auto-conversion); null keeps each coin. */
  settleCurrency: string | null;
  /** The merchant's own payout approval threshold; null follows the router's (`payouts.approval`). */
  payoutApproval: PayoutApprovalRule | null;
  /** Whether payouts, withdrawals and refunds may only go to usable addresses of the merchant's payout allowlist. */
  payoutAllowlist: boolean;
  createdAt: number;
}

/**
 * When a payout needs a second person: one whose amount is above `above` (a decimal string) in
 * `currency` (a fiat currency, converted at the current price, or a coin, compared in its units
 * when the payout is in that coin and converted otherwise).
 */
export interface PayoutApprovalRule {
  above: string;
  currency: string;
}

/** An API key, kept only as a hash of its plaintext. */
export interface ApiKeyRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  /** Hex SHA-256 of the plaintext key. */
  hash: string;
  /** The first characters of the key ("sk_test_AbCd"), enough to recognise it in a list. */
  prefix: string;
  createdAt: number;
  revokedAt: number | null;
}

/** An invoice (a /v1 payment is the same record). */
export interface InvoiceRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  status: InvoiceStatus;
  /** Requested amount in units of `amountCurrency`. */
  amount: bigint;
  amountCurrency: string;
  /** Coins the payer may choose from (hosted mode); null means every supported coin. */
  acceptedCoins: string[] | null;
  /** Coin and network: fixed at creation for whitelabel, chosen by the payer for hosted. */
  coin: string | null;
  network: string | null;
  address: string | null;
  /** Price of 1 `coin` in `amountCurrency`, scaled by 10^RATE_DECIMALS. */
  rate: bigint | null;
  /**
   * When the locked `rate` was observed, epoch ms; for a rate combined from several sources,
   * the oldest of their prices. Null until a rate is locked.
   */
  rateAt: number | null;
  /**
   * The price sources the locked `rate` was combined from (["coinbase","kraken"], ["static"]
   * for the fixed table; empty when the pricing adapter does not say). Null until a rate is locked.
   */
  rateSources: string[] | null;
  /** What the payer must send, in units of `coin`. */
  payAmount: bigint | null;
  feePaidByPayer: boolean;
  /** Accepted underpayment in tenths of a percent (0..500). */
  underPaidCoverTenths: number;
  isWhiteLabel: boolean;
  returnUrl: string | null;
  /** The hosted payment page, fixed at creation from the mount path and `publicUrl`. */
  paymentUrl: string;
  /** Free-form merchant data; `orderId` flows into every event. */
  metadata: Record<string, unknown> | null;
  /** Asset the credited amount is converted into (auto-conversion); null keeps the coin. */
  settleCurrency: string | null;
  /** The payment link this invoice was created from, if any. */
  paymentLinkId: string | null;
  /** Sum of the deposits in `coin` that are neither dropped nor reversed, in units of `coin`. */
  receivedAmount: bigint;
  /**
   * Sum of the deposits in `coin` that were credited and then left the chain (status REVERSED),
   * in units of `coin`: taken back from the balance and no longer in `receivedAmount`.
   */
  reversedAmount: bigint;
  /** Hash of the most recent deposit transaction. */
  txHash: string | null;
  /** True once a deposit reopened the invoice after it had expired. */
  late: boolean;
  failureReason: "underpaid" | null;
  expiresAt: number;
  createdAt: number;
  updatedAt: number;
}

/**
 * Lifecycle of one on-chain deposit as this service tracks it: PENDING (seen, not final),
 * CONFIRMED (final and credited), DROPPED (left the chain before it was final, never credited),
 * REVERSED (credited, then left the chain in a reorg deeper than its confirmations: the credit
 * was taken back). A DROPPED or REVERSED deposit that comes back on chain is PENDING again.
 */
export type DepositStatus = "PENDING" | "CONFIRMED" | "DROPPED" | "REVERSED";

/** One transfer to an address this service issued. */
export interface DepositRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  invoiceId: string;
  coin: string;
  network: string;
  address: string;
  txHash: string;
  /** Output (UTXO chains) or log index (EVM): with network and txHash, the unique key. */
  outputIndex: number;
  amount: bigint;
  confirmations: number;
  /**
   * The block the chain last reported the transfer in (its hash), null while it was in none (a
   * mempool transaction) or when the chain adapter does not name blocks. A report of a drop
   * from another block than this one is about a block the transfer has left, and changes nothing.
   */
  blockHash: string | null;
  status: DepositStatus;
  /**
   * False for deposits that do not move the invoice: a coin other than the invoice's (a stray
   * deposit, credited in its own coin) or a transfer after the invoice's monitoring window closed.
   */
  countsTowardInvoice: boolean;
  /** Fee taken when credited (0.5% of amount, rounded down). */
  fee: bigint;
  /** When the credit that stands now was posted; null while not credited (or after a reversal). */
  creditedAt: number | null;
  /**
   * The asset and amount the standing credit put on the balance: the coin and the net amount,
   * or the settle currency and the converted amount after an auto-conversion. What a reversal
   * takes back. Null / 0 while not credited.
   */
  creditedAsset: string | null;
  creditedAmount: bigint;
  /** How many times the deposit was reversed; each re-credit and reversal has its own cause key. */
  reversals: number;
  seenAt: number;
  updatedAt: number;
}

/** Where an issued deposit address points. */
export interface AddressRecord {
  mode: Mode;
  network: string;
  address: string;
  coin: string;
  merchantId: string;
  invoiceId: string;
  createdAt: number;
}

/**
 * A transfer of a token the chain does not list (an ERC-20 outside the currency list) to an
 * issued address, as the chain adapter saw it once final. Never credited and never swept: kept so
 * that the operator sees what sits at deposit addresses besides the ledger's coins.
 */
export interface UnlistedTransferRecord {
  id: string;
  mode: Mode;
  network: string;
  /** The token contract (checksummed on EVM networks). */
  token: string;
  /** The issued address it went to. */
  address: string;
  txHash: string;
  /** The log's index in its block: with mode, network and txHash, the unique key. */
  logIndex: number;
  /** Raw on-chain units: the service does not know the token's decimals. */
  amount: bigint;
  blockNumber: number;
  /** The merchant, invoice and coin the address was issued for. */
  merchantId: string;
  invoiceId: string;
  coin: string;
  /** When the service stored it (epoch ms). */
  seenAt: number;
}

/** One append-only ledger line; a balance is the sum of its lines. */
export interface LedgerEntry {
  id: string;
  merchantId: string;
  mode: Mode;
  asset: string;
  /** Signed: credits positive, debits negative. */
  amount: bigint;
  kind: "deposit" | "deposit_reversal" | "payout" | "payout_reversal" | "exchange_out" | "exchange_in";
  /** Unique reason for the entry ("deposit:dep_..."): the same cause never posts twice. */
  causeKey: string;
  createdAt: number;
}

/** A balance of one asset. */
export interface BalanceRecord {
  merchantId: string;
  mode: Mode;
  asset: string;
  amount: bigint;
  updatedAt: number;
}

/**
 * Payout statuses: PROCESSING until the chain settles it (COMPLETED or FAILED). A payout above
 * the approval threshold starts AWAITING_APPROVAL (debited, not sent) and becomes PROCESSING
 * once approved, or REJECTED (its debit credited back). A refund made as a claim link starts
 * AWAITING_CLAIM (its amount and fee held, no address yet), then takes a payout's statuses once
 * the payer claims it, or ends CANCELLED or EXPIRED (the hold credited back).
 */
export const PAYOUT_STATUSES = [
  "PROCESSING",
  "COMPLETED",
  "FAILED",
  "AWAITING_APPROVAL",
  "REJECTED",
  // Refund claim links only: waiting for the payer's address, then withdrawn (hold returned) or lapsed (hold returned).
  "AWAITING_CLAIM",
  "CANCELLED",
  "EXPIRED",
] as const;
/** One payout status. */
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** A payout (a /v1 withdrawal is the same record). */
export interface PayoutRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  status: PayoutStatus;
  coin: string;
  network: string;
  address: string;
  amount: bigint;
  /** withdrawFee + staticFixedFee of the network at creation. */
  fee: bigint;
  /** For a refund: the invoice (payment) it gives money back for; null for a plain payout. */
  refundOf: string | null;
  /** For a refund of one deposit (a stray coin, say): that deposit; null otherwise. */
  refundDepositId: string | null;
  txHash: string | null;
  /** Why the chain refused it (FAILED), or why it was rejected (REJECTED). */
  failureReason: string | null;
  /** Who asked for it: the API key's id, or the user the host named; null when unknown (an in-process call). */
  requestedBy: string | null;
  /** Who approved or rejected it (a payout held for approval); null otherwise. */
  reviewedBy: string | null;
  /** For a refund made as a claim link: the link's terms; null for every other payout. */
  claim: RefundClaim | null;
  /**
   * Why a PROCESSING payout has no transaction yet: the chain's last refusal to send it (its
   * node down, the hot wallet's coins still locked), scrubbed of URLs and keys; null once it
   * is sent, and for every payout the chain never refused.
   */
  pendingReason: string | null;
  createdAt: number;
  updatedAt: number;
}

/**
 * The terms of a refund claim link. Until it is claimed the payout's `amount` and `fee` are what
 * is held (`held` = their sum) and its `address` is empty; the claim sets them to what is sent.
 */
export interface RefundClaim {
  /** SHA-256 (hex) of the link's secret: the secret itself is never stored. */
  tokenHash: string;
  /** When the link lapses (epoch ms); the hold then goes back. */
  expiresAt: number;
  /** The networks of the refund's coin the payer may choose (the first is the default). */
  networks: string[];
  /**
   * Other coins the payer may choose instead of the refund's own, each with its networks: the
   * amount is then converted at the live rate of the claim. [] offers the refund's coin alone.
   */
  coins: ClaimCoin[];
  /**
   * Once claimed in another coin (the payout's `coin` is then that coin): the refund's own coin
   * and the amount of it the refund counts for against the payment (what was held less the
   * fee). Null otherwise.
   */
  origin: { coin: string; amount: bigint } | null;
  /**
   * For an amount fixed in fiat: that amount (smallest units of `currency`), the rate at
   * creation (price of 1 coin in `currency`, scaled by 10^RATE_DECIMALS) the hold was sized
   * with; null for an amount in the coin.
   */
  fiat: { amount: bigint; currency: string; rate: bigint } | null;
  /** What the link took from the balance when it was made (amount + fee as held). */
  held: bigint;
  /** When the payer claimed it; null before. */
  claimedAt: number | null;
}

/** A coin a refund claim link offers besides the refund's own, and the networks of it the payer may choose. */
export interface ClaimCoin {
  /** The coin's symbol (USDC). */
  coin: string;
  /** Its networks the payer may choose (the first is the default). */
  networks: string[];
}

/** What an audit log entry records. */
export const AUDIT_ACTIONS = [
  "payout.approved",
  "payout.rejected",
  "api_key.issued",
  "api_key.revoked",
  "payout_approval.changed",
  "payout_allowlist.enabled",
  "payout_allowlist.disabled",
  "payout_address.added",
  "payout_address.approved",
  "payout_address.removed",
  "webhook_endpoint.created",
  "webhook_endpoint.secret_rotated",
  "webhook_endpoint.disabled",
  "webhook_endpoint.enabled",
  "webhook_endpoint.deleted",
] as const;
/** One audited action. */
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** One entry of the audit log: who did what to which record, when. */
export interface AuditEntryRecord {
  /** Unique id (`aud_...`). */
  id: string;
  /** Who: a user id or an API key id as the host named it; "host" for the host application's own calls. */
  actor: string;
  /** What was done. */
  action: AuditAction;
  /** The record acted on: a payout id, an API key id, a payout address id; the merchant's id for a merchant setting. */
  recordId: string;
  /** The merchant the record belongs to. */
  merchantId: string;
  /** The record's mode; null for a merchant setting, which covers both modes. */
  mode: Mode | null;
  /** When, epoch ms. */
  at: number;
}

/**
 * An address of a merchant's payout allowlist, in one mode and on one network: once approved and
 * past its cooling-off, payouts may go to it while the merchant's allowlist is on.
 */
export interface AllowedAddressRecord {
  /** Unique id (`pad_...`). */
  id: string;
  merchantId: string;
  mode: Mode;
  /** The network code, as the currency list spells it ("ETH", "TRX"). */
  network: string;
  /** The address as it was given. */
  address: string;
  /** The form two addresses that the network treats as one share (lower case for EVM): what payouts are matched by. */
  addressKey: string;
  /** A name for people ("Treasury cold wallet"); null when none was given. */
  label: string | null;
  /** Who proposed it. */
  proposedBy: string;
  /** Who approved it; null while it awaits approval. */
  approvedBy: string | null;
  /** When it was approved, epoch ms; null while it awaits approval. */
  approvedAt: number | null;
  /** From when payouts may go to it (its approval plus the cooling-off), epoch ms; null while it awaits approval. */
  usableAt: number | null;
  createdAt: number;
}

/** An exchange between two of a merchant's balances (a /v1 conversion). */
export interface ExchangeRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  status: "SUCCESS";
  fromCoin: string;
  toCoin: string;
  amount: bigint;
  /** Price of 1 `fromCoin` in `toCoin`, scaled by 10^RATE_DECIMALS. */
  rate: bigint;
  toAmount: bigint;
  /** For an auto-conversion: the invoice whose credit was converted; null for one the merchant asked for. */
  invoiceId: string | null;
  createdAt: number;
}

/** An event recorded in the same unit of work as the state change that caused it. */
export interface EventRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  type: EventType;
  /**
   * The resource the event is about: the invoice of a payment event, the payout of a withdrawal
   * or refund event, the exchange of a conversion event.
   */
  invoiceId: string;
  /** The resource as it was right after the change, in its /v1 shape (payment, withdrawal, refund, conversion). */
  data: Record<string, unknown>;
  createdAt: number;
}

/** One secret of a webhook endpoint; during a rotation the old one signs until `expiresAt`. */
export interface WebhookSecretRecord {
  /** `whsec_` + base64. Kept in plaintext because signing needs it (unlike API keys). */
  secret: string;
  createdAt: number;
  /** Null for the current secret; for a rotated-out one, when it stops signing. */
  expiresAt: number | null;
}

/** Where a merchant receives events, in one mode. */
export interface WebhookEndpointRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  url: string;
  /** Event types it receives; null for all. */
  events: EventType[] | null;
  secrets: WebhookSecretRecord[];
  /** Disabled endpoints get no new deliveries (a 410 answer disables one). */
  status: "enabled" | "disabled";
  disabledReason: string | null;
  createdAt: number;
  updatedAt: number;
}

/** Delivery states: pending until it succeeds or the retry schedule runs out. */
export type WebhookDeliveryStatus = "pending" | "succeeded" | "failed";

/** One event on its way to one endpoint; its id is the `webhook-id`, stable across retries. */
export interface WebhookDeliveryRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  endpointId: string;
  eventId: string;
  eventType: string;
  /** The exact body sent on every attempt. */
  payload: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  /** When the next attempt is due (null once settled). */
  nextAttemptAt: number | null;
  /** A worker holds the delivery until then; another may claim it after. */
  leaseUntil: number | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
}

/** One HTTP attempt of a delivery, for the delivery log. */
export interface WebhookAttemptRecord {
  id: string;
  deliveryId: string;
  at: number;
  /** The endpoint's HTTP status, or null when no response came (network error, timeout). */
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

/** A reusable link: each payer who continues from its public page gets a fresh hosted invoice from these settings. */
export interface PaymentLinkRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  amount: bigint;
  amountCurrency: string;
  acceptedCoins: string[] | null;
  feePaidByPayer: boolean;
  underPaidCoverTenths: number;
  lifeTimeMinutes: number;
  returnUrl: string | null;
  metadata: Record<string, unknown> | null;
  settleCurrency: string | null;
  active: boolean;
  createdAt: number;
  updatedAt: number;
}

// Subscriptions
/** Subscription statuses: active (in its trial or its current period paid or within its grace days), past_due, cancelled (final). */
export const SUBSCRIPTION_STATUSES = ["active", "past_due", "cancelled"] as const;
/** One subscription status. */
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** How long a billing period is: `count` units, in UTC calendar terms (a month keeps its anchor day). */
export interface BillingInterval {
  unit: "day" | "week" | "month" | "year";
  count: number;
}

/**
 * A subscription: a schedule of hosted invoices, one per billing period (crypto cannot be pulled
 * from a payer, so each period is an invoice the payer pays). Period `i` runs from the `i`-th
 * interval after `anchorAt` to the next; before `anchorAt` (a trial, or a later start) there is
 * no current period (-1).
 */
export interface SubscriptionRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  /** The merchant's own reference of the customer. */
  customer: string;
  status: SubscriptionStatus;
  /** Amount of each period's invoice, in units of `amountCurrency`; a change applies to invoices made after it. */
  amount: bigint;
  amountCurrency: string;
  acceptedCoins: string[] | null;
  interval: BillingInterval;
  /** When it was created or asked to start (the trial's start). */
  startAt: number;
  /** The start of period 0: `startAt` plus the trial. */
  anchorAt: number;
  /** The end of the trial (= anchorAt), or null without one. */
  trialEnd: number | null;
  gracePeriodDays: number;
  renewBeforeDays: number;
  /** Whether the payer may cancel on the subscription's page. */
  payerCanCancel: boolean;
  /** True: no further invoice, cancelled when the current period ends. */
  cancelAtPeriodEnd: boolean;
  /** The period now running (-1 before period 0). */
  currentPeriod: number;
  /** The last period with an invoice (-1: none yet). */
  invoicedThrough: number;
  /** The last period whose invoice was paid (-1: none yet). */
  paidThrough: number;
  /** The invoice awaited (made, not yet seen paid), or null. */
  openInvoiceId: string | null;
  cancelledAt: number | null;
  /** Why it was cancelled: asked through the API, by the payer on its page, at the period end it was set to end at, or unpaid. */
  cancellationReason: "requested" | "payer" | "period_end" | "unpaid" | null;
  metadata: Record<string, unknown> | null;
  /**
   * What each period's invoice URL starts with (the hosted page, from the public URL and mount
   * path at creation): the background work that makes later invoices has no request to read them from.
   */
  paymentUrlPrefix: string;
  /** Hex SHA-256 of the payer page's secret token (the token itself is handed out once). */
  payerTokenHash: string;
  /** When the background work next looks at it (epoch ms). */
  nextRunAt: number;
  createdAt: number;
  updatedAt: number;
}

/** One billing period of a subscription that has its invoice: at most one per (subscription, index). */
export interface SubscriptionPeriodRecord {
  subscriptionId: string;
  /** 0 for the first paid period. */
  index: number;
  merchantId: string;
  mode: Mode;
  start: number;
  end: number;
  invoiceId: string;
  amount: bigint;
  amountCurrency: string;
  /** When the background work saw its invoice paid, or null. */
  paidAt: number | null;
  createdAt: number;
}

/** A remembered answer to a creating request sent with an `Idempotency-Key`. */
export interface IdempotencyRecord {
  merchantId: string;
  mode: Mode;
  key: string;
  /** SHA-256 of method, path and body: the same key with another request is a conflict. */
  requestHash: string;
  /** "started" while the first request runs; "completed" with its answer after. */
  state: "started" | "completed";
  responseStatus: number | null;
  responseBody: string | null;
  createdAt: number;
  expiresAt: number;
  /**
   * Which request holds the key: a random token per claim. Only the holder may complete (or
   * later re-answer) or forget the key; a claim made after a started key's lease lapsed takes
   * it over with a token of its own.
   */
  leaseToken: string | null;
}
