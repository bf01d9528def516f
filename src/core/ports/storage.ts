import type {
  AddressRecord,
  ApiKeyRecord,
  BalanceRecord,
  DepositRecord,
  EventRecord,
  ExchangeRecord,
  IdempotencyRecord,
  InvoiceRecord,
  InvoiceStatus,
  LedgerEntry,
  MerchantRecord,
  Mode,
  PaymentLinkRecord,
  PayoutRecord,
  PayoutStatus,
  UnlistedTransferRecord,
  WebhookAttemptRecord,
  WebhookDeliveryRecord,
  WebhookDeliveryStatus,
  WebhookEndpointRecord,
} from "./records";

/** Who is asking: every merchant-facing read is confined to one merchant in one mode. */
export interface Scope {
  merchantId: string;
  mode: Mode;
}

/**
 * One page of a newest-first list. `after` is the id of the last record of the previous page:
 * the page holds the records that come after it in that order (records inserted since do not
 * shift the pages, so walking them sees each record once).
 */
export interface PageQuery {
  limit: number;
  after?: string | null;
}

/** An API key and the merchant it belongs to: what authenticating a request needs, in one read. */
export interface ApiKeyMatch {
  key: ApiKeyRecord;
  merchant: MerchantRecord;
}

/** Filters of the invoice (payment) list; times are epoch ms, `createdTo` exclusive. */
export interface InvoiceFilter {
  status?: InvoiceStatus;
  createdFrom?: number;
  createdTo?: number;
  network?: string;
}

/** Filters of the payout list: plain payouts (withdrawals) or refunds. */
export interface PayoutFilter {
  kind: "payout" | "refund";
  /** Refunds of one invoice only. */
  refundOf?: string;
  status?: PayoutStatus;
}

/** Filters of the webhook delivery log. */
export interface DeliveryFilter {
  endpointId?: string;
  eventType?: string;
  status?: WebhookDeliveryStatus;
}

/** What one attempt leads to for its delivery (see `recordWebhookAttempt`); `attempts` goes up by one. */
export type WebhookAttemptOutcome = Pick<WebhookDeliveryRecord, "status" | "nextAttemptAt" | "leaseUntil" | "lastStatusCode" | "lastError" | "updatedAt">;

/** Outcome of `postLedgerEntries`: nothing is written unless the status is `posted`. */
export type PostLedgerResult =
  | { status: "posted" }
  /** An entry with one of the cause keys exists already: the cause was posted before. */
  | { status: "duplicate" }
  /** Posting would take the balance of `asset` below zero. */
  | { status: "insufficient"; asset: string };

/** Options of `postLedgerEntries`. */
export interface PostLedgerOptions {
  /** Post even when a balance ends below zero (a reversal of a credit). Default false. */
  overdraw?: boolean;
}

/**
 * Deposits that an operator must hear about: every one reversed at least once (`reversals > 0`)
 * or not counting toward its invoice (a stray coin, or a transfer after the invoice closed).
 */
export interface NotableDepositQuery {
  /** At most this many, in the order stored. */
  limit: number;
  /** The id of the last deposit of the previous page; null for the first page. */
  after?: string | null;
}

/**
 * Reads. Outside a transaction they see committed data only; inside one they also see the
 * transaction's own writes. Every `get`/`find` returns null when nothing matches, never throws
 * for "not found". Records come back as copies: mutating one changes nothing stored.
 */
export interface StorageReads {
  /** The merchant with this id, or null. */
  getMerchant(id: string): Promise<MerchantRecord | null>;
  /**
   * The key whose hash this is (revoked ones included, so callers can tell) with its merchant
   * as stored now, or null (also when the merchant is missing). One read, because every
   * authenticated request needs both.
   */
  findApiKeyByHash(hash: string): Promise<ApiKeyMatch | null>;
  /** All keys of a merchant, oldest first, revoked ones included. */
  listApiKeys(merchantId: string): Promise<ApiKeyRecord[]>;
  /** The invoice with this id if it belongs to `scope`, else null (another merchant's id is "not found"). */
  getInvoice(scope: Scope, id: string): Promise<InvoiceRecord | null>;
  /**
   * The invoice with this id, whoever owns it, or null: a plain read for the public payment
   * page, whose URL carries only the id. It takes no lock, so a page view never waits on (or
   * holds up) the transactions that change the invoice.
   */
  findInvoice(id: string): Promise<InvoiceRecord | null>;
  /** The payout with this id if it belongs to `scope`, else null. */
  getPayout(scope: Scope, id: string): Promise<PayoutRecord | null>;
  /** The exchange with this id if it belongs to `scope`, else null. */
  getExchange(scope: Scope, id: string): Promise<ExchangeRecord | null>;
  /** The issued address on `network` in `mode`, or null if this service never issued it. */
  findAddress(mode: Mode, network: string, address: string): Promise<AddressRecord | null>;
  /**
   * The issued addresses among `addresses` on `network` in `mode`, in no promised order (those
   * never issued are left out; a repeated address comes back once). One read however many are
   * asked for: a chain watcher asks for every recipient of a block at once.
   */
  findAddresses(mode: Mode, network: string, addresses: readonly string[]): Promise<AddressRecord[]>;
  /** Deposits of an invoice, in the order they were first seen. */
  listDepositsForInvoice(invoiceId: string): Promise<DepositRecord[]>;
  /**
   * Deposits in `mode` (every merchant) that were reversed at least once (`reversals > 0`) or
   * do not count toward their invoice (`countsTowardInvoice` false), in the order stored; with
   * `query.after`, those stored after that deposit. Feeds the operator report.
   */
  listNotableDeposits(mode: Mode, query: NotableDepositQuery): Promise<DepositRecord[]>;
  /** Balance of one asset; 0n when the merchant never held it. */
  getBalance(scope: Scope, asset: string): Promise<bigint>;
  /** Every asset the merchant has held in `scope`'s mode, ordered by asset symbol. */
  listBalances(scope: Scope): Promise<BalanceRecord[]>;
  /** Ledger entries of `scope`, oldest first (optionally of one asset). */
  listLedgerEntries(scope: Scope, asset?: string): Promise<LedgerEntry[]>;
  /** Events of `scope`, oldest first, optionally those of one resource only (`invoiceId`: an invoice, payout or exchange id). */
  listEvents(scope: Scope, options?: { invoiceId?: string }): Promise<EventRecord[]>;
  /**
   * Invoices in `mode` that the clock alone moves once their window passes: status PENDING or
   * UNDER_PAID with `expiresAt <= now`. (A CONFIRMING invoice waits for its deposits however
   * late it is, so it is left out: listing it would crowd due invoices off the page.) Oldest
   * `expiresAt` first, at most `limit`.
   */
  listExpiringInvoices(mode: Mode, now: number, limit: number): Promise<InvoiceRecord[]>;
  /**
   * Payouts in `mode` with this status ordered by (createdAt, id), at most `limit`; with
   * `after` (the id of the last payout of the previous page), only those ordered after it.
   */
  listPayoutsByStatus(mode: Mode, status: PayoutStatus, limit: number, after?: string | null): Promise<PayoutRecord[]>;
  /** A value stored by `setCursor` (e.g. how far a chain's deposit feed was read), or null. */
  getCursor(key: string): Promise<string | null>;
  /**
   * Invoices of `scope` matching `filter`, newest first by (createdAt, id), one page: with
   * `page.after`, those ordered after that invoice. Invoices created meanwhile never shift a
   * page, because they sort before the cursor.
   */
  listInvoices(scope: Scope, filter: InvoiceFilter, page: PageQuery): Promise<InvoiceRecord[]>;
  /** Payouts of `scope` matching `filter`, newest first by (createdAt, id), one page. */
  listPayouts(scope: Scope, filter: PayoutFilter, page: PageQuery): Promise<PayoutRecord[]>;
  /** Exchanges of `scope`, newest first by (createdAt, id), one page. */
  listExchanges(scope: Scope, page: PageQuery): Promise<ExchangeRecord[]>;
  /** Every refund (payout with `refundOf`) of one invoice, any status, oldest first. */
  listRefunds(invoiceId: string): Promise<PayoutRecord[]>;
  /** Per asset, the sum of `scope`'s deposits that are seen but not yet confirmed (status PENDING). */
  sumPendingDeposits(scope: Scope): Promise<Array<{ asset: string; amount: bigint }>>;
  /** The payment link with this id in `scope`, or null. */
  getPaymentLink(scope: Scope, id: string): Promise<PaymentLinkRecord | null>;
  /** The payment link with this id, whoever owns it (its public URL carries only the id), or null. */
  findPaymentLink(id: string): Promise<PaymentLinkRecord | null>;
  /** Payment links of `scope`, newest first by (createdAt, id), one page. */
  listPaymentLinks(scope: Scope, page: PageQuery): Promise<PaymentLinkRecord[]>;
  /** The webhook endpoint with this id in `scope`, or null. */
  getWebhookEndpoint(scope: Scope, id: string): Promise<WebhookEndpointRecord | null>;
  /** Every webhook endpoint of `scope` (enabled and disabled), oldest first. */
  listWebhookEndpoints(scope: Scope): Promise<WebhookEndpointRecord[]>;
  /** The delivery with this id in `scope`, or null. */
  getWebhookDelivery(scope: Scope, id: string): Promise<WebhookDeliveryRecord | null>;
  /** Deliveries of `scope` matching `filter`, newest first (by insertion), one page of them. */
  listWebhookDeliveries(scope: Scope, filter: DeliveryFilter, page: PageQuery): Promise<WebhookDeliveryRecord[]>;
  /** The attempts of one delivery, oldest first. */
  listWebhookAttempts(deliveryId: string): Promise<WebhookAttemptRecord[]>;
  /** Every unlisted-token transfer stored in `mode`, whatever the merchant, in the order stored. */
  listUnlistedTransfers(mode: Mode): Promise<UnlistedTransferRecord[]>;
}

/**
 * A unit of work: everything written through it becomes visible together when the function
 * given to `Storage.transaction` resolves, and none of it if that function throws. `lock*`
 * methods return the current record and hold it until the transaction ends, so two
 * transactions that lock the same record run one after the other.
 */
export interface StorageTransaction extends StorageReads {
  /** Stores a new merchant. Throws if the id exists. */
  insertMerchant(merchant: MerchantRecord): Promise<void>;
  /** Stores a new key. Throws if the id or the hash exists. */
  insertApiKey(key: ApiKeyRecord): Promise<void>;
  /** Marks a key revoked at `at`; returns false when no such key exists or it was revoked already. */
  revokeApiKey(id: string, at: number): Promise<boolean>;
  /**
   * Stores a new invoice. Fails if the id exists: here, or (an adapter that sends the insert
   * together with the next statement) by making the transaction throw.
   */
  insertInvoice(invoice: InvoiceRecord): Promise<void>;
  /** Locks and returns the invoice with this id (any merchant), or null. */
  lockInvoice(id: string): Promise<InvoiceRecord | null>;
  /** Replaces the stored invoice with the same id (which must exist). */
  updateInvoice(invoice: InvoiceRecord): Promise<void>;
  /** Stores an issued address. Throws if (mode, network, address) exists. */
  insertAddress(address: AddressRecord): Promise<void>;
  /**
   * Replaces the stored address with the same (mode, network, address), which must exist: an
   * address handed out again points at its new invoice (and merchant), so that what is sent to
   * it from then on is credited there.
   */
  updateAddress(address: AddressRecord): Promise<void>;
  /** Locks and returns the deposit with this chain identity in `mode`, or null. */
  lockDeposit(mode: Mode, network: string, txHash: string, outputIndex: number): Promise<DepositRecord | null>;
  /** Stores a new deposit. Throws if its (mode, network, txHash, outputIndex) exists. */
  insertDeposit(deposit: DepositRecord): Promise<void>;
  /** Replaces the stored deposit with the same id (which must exist). */
  updateDeposit(deposit: DepositRecord): Promise<void>;
  /**
   * Appends ledger entries and updates the balances they touch, all or nothing: nothing is
   * written when any entry's `causeKey` was posted before (`duplicate`) or when any balance
   * the batch lowers would end below zero (`insufficient`; a batch that only raises or keeps a
   * balance that is below zero already is posted). Checking and writing are one atomic step,
   * so concurrent debits can never overdraw a balance.
   *
   * With `options.overdraw`, the balance check is skipped: the batch is posted even when a
   * balance ends below zero. Core uses it only to take back a credit whose deposit left the
   * chain (a "deposit_reversal"), which must be recorded whatever was spent since; every
   * other debit is then refused until credits bring the balance back to zero.
   */
  postLedgerEntries(entries: LedgerEntry[], options?: PostLedgerOptions): Promise<PostLedgerResult>;
  /** Stores a new payout. Throws if the id exists. */
  insertPayout(payout: PayoutRecord): Promise<void>;
  /** Locks and returns the payout with this id (any merchant), or null. */
  lockPayout(id: string): Promise<PayoutRecord | null>;
  /** Replaces the stored payout with the same id (which must exist). */
  updatePayout(payout: PayoutRecord): Promise<void>;
  /** Stores a new exchange. Throws if the id exists. */
  insertExchange(exchange: ExchangeRecord): Promise<void>;
  /**
   * Stores an unlisted-token transfer unless one with the same (mode, network, txHash,
   * logIndex) is stored already. Returns true when it stored it, false for a repeat (the stored
   * one is kept as it was): a chain adapter may report a transfer more than once.
   */
  insertUnlistedTransfer(transfer: UnlistedTransferRecord): Promise<boolean>;
  /** Appends events (the event log), in the order given. */
  appendEvents(events: EventRecord[]): Promise<void>;
  /**
   * The outbox's fan-out: for each event, in the order given, stores one pending delivery per
   * webhook endpoint of the event's (merchantId, mode) that is enabled and subscribed to its type
   * (`events` null, or naming the type), in the endpoints' (createdAt, id) order, as this
   * transaction sees them. Each delivery: id `webhookDeliveryId(event.id, endpoint.id)`, payload
   * `webhookPayload(event)`, status pending, attempts 0, nextAttemptAt, createdAt and updatedAt
   * `now`, no lease, status code or error. No matching endpoint: nothing is stored. (`fanOut`
   * computes exactly these records.) Matching inside storage lets an adapter do it without
   * reading the endpoints back first.
   */
  queueWebhookDeliveries(events: EventRecord[], now: number): Promise<void>;
  /** Stores a named value, replacing any earlier one. */
  setCursor(key: string, value: string): Promise<void>;
  /**
   * Returns the named value (null when none is stored) and holds the name until the
   * transaction ends: a second transaction locking the same name, stored or not yet, waits
   * for this one (and then sees what it wrote). Chain adapters serialize their nonce counter
   * and signed payouts on it across instances.
   */
  lockCursor(key: string): Promise<string | null>;
  /** Replaces the stored merchant with the same id (which must exist). */
  updateMerchant(merchant: MerchantRecord): Promise<void>;
  /** Stores a new payment link. Throws if the id exists. */
  insertPaymentLink(link: PaymentLinkRecord): Promise<void>;
  /** Locks and returns the payment link with this id (any merchant), or null. */
  lockPaymentLink(id: string): Promise<PaymentLinkRecord | null>;
  /** Replaces the stored payment link with the same id (which must exist). */
  updatePaymentLink(link: PaymentLinkRecord): Promise<void>;
  /**
   * Claims an idempotency key for the request holding `record.leaseToken`, with a lease of
   * `leaseMs` measured on the storage's own clock (PostgreSQL: the server's; one clock for every
   * instance sharing the storage, whatever their own clocks say). Stores `record` (null
   * returned) unless a record for the same (merchantId, mode, key) exists whose `expiresAt` is
   * still ahead of `record.createdAt`, and returns that one instead. Two cases replace the
   * existing record all the same: it expired, or it is "started" with the same `requestHash`
   * and its lease has lapsed (its request died before completing; the new claim takes it over).
   * Two transactions claiming one key at once: exactly one gets null, the other the record.
   */
  claimIdempotencyKey(record: IdempotencyRecord, leaseMs: number): Promise<IdempotencyRecord | null>;
  /**
   * Stores the answer of a key claimed with `leaseToken` (state "completed"; the token stays,
   * so the same request may store a later answer, and a completed key is never taken over).
   * Returns false, writing nothing, when that claim does not hold the key (it lapsed and was
   * taken over, or was forgotten): the caller's transaction must then not commit its work.
   */
  completeIdempotencyKey(scope: Scope, key: string, leaseToken: string, responseStatus: number, responseBody: string): Promise<boolean>;
  /** Forgets a key claimed with `leaseToken` (its request failed in a way that may be retried); a key held by another claim stays. */
  deleteIdempotencyKey(scope: Scope, key: string, leaseToken: string): Promise<void>;
  /** Deletes up to `limit` records whose `expiresAt <= now`; returns how many. */
  deleteExpiredIdempotencyKeys(now: number, limit: number): Promise<number>;
  /** Stores a new webhook endpoint. Throws if the id exists. */
  insertWebhookEndpoint(endpoint: WebhookEndpointRecord): Promise<void>;
  /** Locks and returns the webhook endpoint with this id (any merchant), or null. */
  lockWebhookEndpoint(id: string): Promise<WebhookEndpointRecord | null>;
  /** Replaces the stored endpoint with the same id (which must exist). */
  updateWebhookEndpoint(endpoint: WebhookEndpointRecord): Promise<void>;
  /** Deletes an endpoint (its deliveries stay in the log); false when there was none. */
  deleteWebhookEndpoint(id: string): Promise<boolean>;
  /**
   * Stores new deliveries. Their insertion order is kept: the delivery log lists by it, and
   * `claimWebhookDeliveries` breaks ties on it. Throws if an id exists.
   */
  insertWebhookDeliveries(deliveries: WebhookDeliveryRecord[]): Promise<void>;
  /** Locks and returns the delivery with this id (any merchant), or null. */
  lockWebhookDelivery(id: string): Promise<WebhookDeliveryRecord | null>;
  /** Replaces the stored delivery with the same id (which must exist). */
  updateWebhookDelivery(delivery: WebhookDeliveryRecord): Promise<void>;
  /** Appends one attempt to a delivery's log. */
  insertWebhookAttempt(attempt: WebhookAttemptRecord): Promise<void>;
  /**
   * Records one attempt of a claimed delivery and what it leads to, as one atomic step: appends
   * `attempt` to the log of delivery `attempt.deliveryId`, and applies `outcome` to that
   * delivery (its fields, and `attempts` one up) when the claim that leased it until
   * `heldUntil` still holds it (it is pending with exactly that `leaseUntil`), or, whoever holds
   * it now, when `outcome.status` is "succeeded" (the message arrived). Otherwise (the lease ran
   * out and another worker took the delivery over, or it was settled meanwhile) only the attempt
   * is appended. Nothing is returned, so an adapter may send it with the commit.
   */
  recordWebhookAttempt(attempt: WebhookAttemptRecord, heldUntil: number, outcome: WebhookAttemptOutcome): Promise<void>;
  /**
   * Claims work for a delivery worker. Every delivery is on its own schedule: a candidate is
   * any pending delivery with `nextAttemptAt <= now` and no live lease (`leaseUntil` null or
   * `<= now`), whatever else is pending for its endpoint. Per endpoint, at most `perEndpoint`
   * deliveries are leased at once: its pending deliveries with `leaseUntil > now` count against
   * that, and of its candidates the earliest due (then the oldest inserted) fill what is left.
   * Of all those, at most `limit` are claimed, shared out in turns so that no endpoint's or
   * merchant's backlog crowds the others out: a delivery's turn is its rank among its
   * merchant's chosen candidates, ranked by (rank within its endpoint, nextAttemptAt,
   * insertion); lower turns first, ties by (nextAttemptAt, insertion). Claimed deliveries get
   * `leaseUntil = now + leaseMs` and are returned in that order. Two workers claiming at once
   * never get the same delivery and together never lease more than `perEndpoint` of one
   * endpoint; a worker that dies leaves its claims to expire and be claimed again.
   */
  claimWebhookDeliveries(now: number, limit: number, leaseMs: number, perEndpoint: number): Promise<WebhookDeliveryRecord[]>;
  /**
   * Settles every pending delivery of an endpoint as failed with `error` (the endpoint was
   * deleted or disabled). Returns how many there were.
   */
  failPendingWebhookDeliveries(endpointId: string, error: string, now: number): Promise<number>;
}

/**
 * Where the service keeps everything. Adapters: `postgresStorage()` (a PostgreSQL server or
 * PGlite; the embedded default), `memoryStorage()` (process memory).
 * Reads straight on the storage object see committed data; every change goes through
 * `transaction`.
 */
export interface Storage extends StorageReads {
  /**
   * Runs `work` as one atomic unit: its writes commit together when it resolves and are all
   * discarded when it throws (the error is rethrown). Transactions that lock the same record
   * are serialized. `work` must not call `transaction` again.
   */
  transaction<T>(work: (tx: StorageTransaction) => Promise<T>): Promise<T>;
  /** Releases connections and timers. Further calls may fail. */
  close(): Promise<void>;
}
