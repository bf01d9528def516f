import type {
  AddressRecord,
  ApiKeyRecord,
  BalanceRecord,
  DepositRecord,
  EventRecord,
  ExchangeRecord,
  IdempotencyRecord,
  InvoiceRecord,
  LedgerEntry,
  MerchantRecord,
  Mode,
  PaymentLinkRecord,
  PayoutRecord,
  UnlistedTransferRecord,
  WebhookAttemptRecord,
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
} from "../../core/ports/records";
import { fanOut } from "../../core/ports/fan-out";
import { CreatedIndex } from "./created-index";
import { Mutex } from "./mutex";
import type {
  DeliveryFilter,
  InvoiceFilter,
  PageQuery,
  PayoutFilter,
  PostLedgerResult,
  Scope,
  Storage,
  StorageReads,
  StorageTransaction,
} from "../../core/ports/storage/index";

// NUL cannot appear in ids, networks or addresses, so joined keys never collide.
const SEP = "\u0000";
const scopeKey = (merchantId: string, mode: Mode): string => merchantId + SEP + mode;
const balanceKey = (merchantId: string, mode: Mode, asset: string): string => merchantId + SEP + mode + SEP + asset;
const addressKey = (mode: Mode, network: string, address: string): string => mode + SEP + network + SEP + address;
const depositKey = (mode: Mode, network: string, txHash: string, outputIndex: number): string =>
  mode + SEP + network + SEP + txHash + SEP + String(outputIndex);

const EXPIRABLE = new Set<InvoiceRecord["status"]>(["PENDING", "UNDER_PAID"]);

// Copies in and out. Most records hold only primitives (bigint included), so a spread is a full
// copy; the nested fields (metadata, event data) are JSON by contract, and a JSON-shaped deep
// copy of them costs a fraction of structuredClone on the request path.
const copy = <T extends object>(record: T): T => ({ ...record });
const copyInvoice = (invoice: InvoiceRecord): InvoiceRecord => ({
  ...invoice,
  acceptedCoins: invoice.acceptedCoins ? [...invoice.acceptedCoins] : invoice.acceptedCoins,
  rateSources: invoice.rateSources ? [...invoice.rateSources] : invoice.rateSources,
  metadata: invoice.metadata ? copyJson(invoice.metadata) : invoice.metadata,
});
const copyEvent = (event: EventRecord): EventRecord => ({ ...event, data: copyJson(event.data) });

/** Deep copy of JSON-shaped data (objects, arrays, primitives; bigint kept as it is). */
function copyJson<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(copyJson) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const copied = copyJson((value as Record<string, unknown>)[key]);
    // A JSON "__proto__" key is data; plain assignment would set the copy's prototype instead.
    if (key === "__proto__") Object.defineProperty(out, key, { value: copied, enumerable: true, writable: true, configurable: true });
    else out[key] = copied;
  }
  return out as T;
}

const copyEndpoint = (endpoint: WebhookEndpointRecord): WebhookEndpointRecord => ({
  ...endpoint,
  events: endpoint.events ? [...endpoint.events] : null,
  secrets: endpoint.secrets.map(copy),
});

const copyLink = (link: PaymentLinkRecord): PaymentLinkRecord => ({
  ...link,
  acceptedCoins: link.acceptedCoins ? [...link.acceptedCoins] : null,
  metadata: link.metadata ? copyJson(link.metadata) : null,
});

/** A delivery as the log keeps it, with its place in insertion order. */
interface StoredDelivery {
  record: WebhookDeliveryRecord;
  position: number;
}

/** Earliest due first, then the oldest inserted: the order claims take an endpoint's candidates in. */
const byDue = (a: StoredDelivery, b: StoredDelivery): number => a.record.nextAttemptAt! - b.record.nextAttemptAt! || a.position - b.position;

const idempotencyKey = (merchantId: string, mode: Mode, key: string): string => merchantId + SEP + mode + SEP + key;

function matchesInvoice(invoice: InvoiceRecord, filter: InvoiceFilter): boolean {
  return (
    (filter.status === undefined || invoice.status === filter.status) &&
    (filter.network === undefined || invoice.network === filter.network) &&
    (filter.createdFrom === undefined || invoice.createdAt >= filter.createdFrom) &&
    (filter.createdTo === undefined || invoice.createdAt < filter.createdTo)
  );
}

function matchesPayout(payout: PayoutRecord, filter: PayoutFilter): boolean {
  return (
    (filter.kind === "refund" ? payout.refundOf !== null : payout.refundOf === null) &&
    (filter.refundOf === undefined || payout.refundOf === filter.refundOf) &&
    (filter.status === undefined || payout.status === filter.status)
  );
}

const inScope = (record: { merchantId: string; mode: Mode }, scope: Scope): boolean => record.merchantId === scope.merchantId && record.mode === scope.mode;

const byCreatedAt = (a: { createdAt: number }, b: { createdAt: number }): number => a.createdAt - b.createdAt;
/** (createdAt, id) order: ties on the clock still have one stable order to page through. */
const compareCreated = (a: { createdAt: number; id: string }, b: { createdAt: number; id: string }): number =>
  a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Reverts one write of a transaction; run newest first on rollback. */
type Undo = () => void;

function setIn<K, V>(map: Map<K, V>, key: K, value: V, undo: Undo[]): void {
  const previous = map.get(key);
  map.set(key, value);
  undo.push(previous === undefined ? () => void map.delete(key) : () => void map.set(key, previous));
}

function deleteIn<K, V>(map: Map<K, V>, key: K, undo: Undo[]): void {
  const previous = map.get(key);
  if (previous === undefined) return;
  map.delete(key);
  undo.push(() => void map.set(key, previous));
}

function pushIn<K, V>(map: Map<K, V[]>, key: K, value: V, undo: Undo[]): void {
  let list = map.get(key);
  if (!list) {
    const created: V[] = [];
    map.set(key, created);
    undo.push(() => void map.delete(key));
    list = created;
  }
  const target = list;
  target.push(value);
  undo.push(() => void target.pop());
}

function conflict(what: string): never {
  throw new Error(`memoryStorage: ${what} exists already (unique constraint)`);
}

function missing(what: string): never {
  throw new Error(`memoryStorage: cannot update ${what}: no such record`);
}

/** The tables and indexes. Reads are synchronous; writes log how to undo themselves. */
class Tables {
  readonly merchants = new Map<string, MerchantRecord>();
  readonly apiKeys = new Map<string, ApiKeyRecord>();
  readonly apiKeyIdByHash = new Map<string, string>();
  readonly apiKeyIdsByMerchant = new Map<string, string[]>();
  readonly invoices = new Map<string, InvoiceRecord>();
  readonly addresses = new Map<string, AddressRecord>();
  readonly deposits = new Map<string, DepositRecord>();
  readonly depositIdByChainKey = new Map<string, string>();
  readonly depositIdsByInvoice = new Map<string, string[]>();
  readonly ledgerByScope = new Map<string, LedgerEntry[]>();
  readonly causeKeys = new Set<string>();
  readonly balances = new Map<string, BalanceRecord>();
  readonly payouts = new Map<string, PayoutRecord>();
  readonly exchanges = new Map<string, ExchangeRecord>();
  readonly eventsByScope = new Map<string, EventRecord[]>();
  readonly cursors = new Map<string, string>();
  readonly webhookEndpoints = new Map<string, WebhookEndpointRecord>();
  readonly deliveries = new Map<string, StoredDelivery>();
  /** Delivery ids per scope, in insertion order (the log reads it backwards). */
  readonly deliveryIdsByScope = new Map<string, string[]>();
  /** Pending delivery ids per endpoint (claims order them by due time, then insertion position). */
  readonly pendingByEndpoint = new Map<string, string[]>();
  readonly attemptsByDelivery = new Map<string, WebhookAttemptRecord[]>();
  readonly paymentLinks = new Map<string, PaymentLinkRecord>();
  /** By chain identity (depositKey with the log index), in the order stored. */
  readonly unlistedTransfers = new Map<string, UnlistedTransferRecord>();
  readonly invoiceOrder = new CreatedIndex();
  readonly payoutOrder = new CreatedIndex();
  readonly exchangeOrder = new CreatedIndex();
  readonly linkOrder = new CreatedIndex();
  readonly idempotency = new Map<string, IdempotencyRecord>();
  /** When each idempotency key's lease lapses (epoch ms): storage bookkeeping, not part of the record. */
  readonly leases = new Map<string, number>();
  private deliveryPosition = 0;

  reads(run: <T>(method: string, read: () => T) => Promise<T>): StorageReads {
    return {
      getMerchant: (id) => run("getMerchant", () => this.pick(this.merchants.get(id), copy)),
      findApiKeyByHash: (hash) =>
        run("findApiKeyByHash", () => {
          const id = this.apiKeyIdByHash.get(hash);
          const key = id === undefined ? undefined : this.apiKeys.get(id);
          const merchant = key && this.merchants.get(key.merchantId);
          return key && merchant ? { key: copy(key), merchant: copy(merchant) } : null;
        }),
      listApiKeys: (merchantId) =>
        run("listApiKeys", () =>
          (this.apiKeyIdsByMerchant.get(merchantId) ?? [])
            .flatMap((id) => this.apiKeys.get(id) ?? [])
            .sort(byCreatedAt)
            .map(copy),
        ),
      getInvoice: (scope, id) => run("getInvoice", () => this.scoped(this.invoices.get(id), scope, copyInvoice)),
      findInvoice: (id) => run("findInvoice", () => this.pick(this.invoices.get(id), copyInvoice)),
      getPayout: (scope, id) => run("getPayout", () => this.scoped(this.payouts.get(id), scope, copy)),
      getExchange: (scope, id) => run("getExchange", () => this.scoped(this.exchanges.get(id), scope, copy)),
      findAddress: (mode, network, address) => run("findAddress", () => this.pick(this.addresses.get(addressKey(mode, network, address)), copy)),
      findAddresses: (mode, network, addresses) =>
        run("findAddresses", () => {
          const found: AddressRecord[] = [];
          // A Set: an address asked for twice comes back once.
          for (const address of new Set(addresses)) {
            const record = this.addresses.get(addressKey(mode, network, address));
            if (record) found.push(copy(record));
          }
          return found;
        }),
      listDepositsForInvoice: (invoiceId) =>
        run("listDepositsForInvoice", () => (this.depositIdsByInvoice.get(invoiceId) ?? []).flatMap((id) => this.deposits.get(id) ?? []).map(copy)),
      listNotableDeposits: (mode, query) =>
        run("listNotableDeposits", () => {
          const all = [...this.deposits.values()];
          const start = query.after ? all.findIndex((deposit) => deposit.id === query.after) + 1 : 0;
          return all
            .slice(start)
            .filter((deposit) => deposit.mode === mode && (deposit.reversals > 0 || !deposit.countsTowardInvoice))
            .slice(0, query.limit)
            .map(copy);
        }),
      getBalance: (scope, asset) => run("getBalance", () => this.balances.get(balanceKey(scope.merchantId, scope.mode, asset))?.amount ?? 0n),
      listBalances: (scope) =>
        run("listBalances", () =>
          [...this.balances.values()]
            .filter((balance) => inScope(balance, scope))
            .sort((a, b) => (a.asset < b.asset ? -1 : a.asset > b.asset ? 1 : 0))
            .map(copy),
        ),
      listLedgerEntries: (scope, asset) =>
        run("listLedgerEntries", () =>
          (this.ledgerByScope.get(scopeKey(scope.merchantId, scope.mode)) ?? []).filter((entry) => asset === undefined || entry.asset === asset).map(copy),
        ),
      listEvents: (scope, options) =>
        run("listEvents", () => {
          const invoiceId = options?.invoiceId;
          return (this.eventsByScope.get(scopeKey(scope.merchantId, scope.mode)) ?? [])
            .filter((event) => invoiceId === undefined || event.invoiceId === invoiceId)
            .map(copyEvent);
        }),
      listExpiringInvoices: (mode, now, limit) =>
        run("listExpiringInvoices", () =>
          [...this.invoices.values()]
            .filter((invoice) => invoice.mode === mode && EXPIRABLE.has(invoice.status) && invoice.expiresAt <= now)
            .sort((a, b) => a.expiresAt - b.expiresAt)
            .slice(0, Math.max(0, limit))
            .map(copyInvoice),
        ),
      listPayoutsByStatus: (mode, status, limit, after) =>
        run("listPayoutsByStatus", () => {
          const last = after ? this.payouts.get(after) : undefined;
          return [...this.payouts.values()]
            .filter((payout) => payout.mode === mode && payout.status === status && (!last || compareCreated(payout, last) > 0))
            .sort(compareCreated)
            .slice(0, Math.max(0, limit))
            .map(copy);
        }),
      getCursor: (key) => run("getCursor", () => this.cursors.get(key) ?? null),
      listInvoices: (scope, filter, page) =>
        run("listInvoices", () =>
          this.page(this.invoiceOrder, this.invoices, scope, page, (invoice) => (matchesInvoice(invoice, filter) ? copyInvoice(invoice) : null)),
        ),
      listPayouts: (scope, filter, page) =>
        run("listPayouts", () => this.page(this.payoutOrder, this.payouts, scope, page, (payout) => (matchesPayout(payout, filter) ? copy(payout) : null))),
      listExchanges: (scope, page) => run("listExchanges", () => this.page(this.exchangeOrder, this.exchanges, scope, page, copy)),
      listRefunds: (invoiceId) =>
        run("listRefunds", () =>
          [...this.payouts.values()]
            .filter((payout) => payout.refundOf === invoiceId)
            .sort(compareCreated)
            .map(copy),
        ),
      sumPendingDeposits: (scope) =>
        run("sumPendingDeposits", () => {
          const sums = new Map<string, bigint>();
          for (const deposit of this.deposits.values()) {
            if (deposit.status === "PENDING" && inScope(deposit, scope)) sums.set(deposit.coin, (sums.get(deposit.coin) ?? 0n) + deposit.amount);
          }
          return [...sums].sort(([a], [b]) => (a < b ? -1 : 1)).map(([asset, amount]) => ({ asset, amount }));
        }),
      getPaymentLink: (scope, id) => run("getPaymentLink", () => this.scoped(this.paymentLinks.get(id), scope, copyLink)),
      findPaymentLink: (id) => run("findPaymentLink", () => this.pick(this.paymentLinks.get(id), copyLink)),
      listPaymentLinks: (scope, page) => run("listPaymentLinks", () => this.page(this.linkOrder, this.paymentLinks, scope, page, copyLink)),
      getWebhookEndpoint: (scope, id) => run("getWebhookEndpoint", () => this.scoped(this.webhookEndpoints.get(id), scope, copyEndpoint)),
      listWebhookEndpoints: (scope) => run("listWebhookEndpoints", () => this.endpointsOf(scope).sort(compareCreated).map(copyEndpoint)),
      getWebhookDelivery: (scope, id) => run("getWebhookDelivery", () => this.scoped(this.deliveries.get(id)?.record, scope, copy)),
      listWebhookDeliveries: (scope, filter, page) => run("listWebhookDeliveries", () => this.deliveryPage(scope, filter, page)),
      listWebhookAttempts: (deliveryId) => run("listWebhookAttempts", () => (this.attemptsByDelivery.get(deliveryId) ?? []).map(copy)),
      listUnlistedTransfers: (mode) =>
        run("listUnlistedTransfers", () => [...this.unlistedTransfers.values()].filter((transfer) => transfer.mode === mode).map(copy)),
    };
  }

  writes(run: <T>(method: string, write: () => T) => Promise<T>, undo: Undo[]): Omit<StorageTransaction, keyof StorageReads> {
    return {
      insertMerchant: (merchant) =>
        run("insertMerchant", () => {
          if (this.merchants.has(merchant.id)) conflict(`merchant ${merchant.id}`);
          setIn(this.merchants, merchant.id, copy(merchant), undo);
        }),
      insertApiKey: (key) =>
        run("insertApiKey", () => {
          if (this.apiKeys.has(key.id)) conflict(`API key ${key.id}`);
          if (this.apiKeyIdByHash.has(key.hash)) conflict("an API key with this hash");
          setIn(this.apiKeys, key.id, copy(key), undo);
          setIn(this.apiKeyIdByHash, key.hash, key.id, undo);
          pushIn(this.apiKeyIdsByMerchant, key.merchantId, key.id, undo);
        }),
      revokeApiKey: (id, at) =>
        run("revokeApiKey", () => {
          const key = this.apiKeys.get(id);
          if (!key || key.revokedAt !== null) return false;
          // Replace rather than mutate, so the undo can restore the old object as it was.
          setIn(this.apiKeys, id, { ...key, revokedAt: at }, undo);
          return true;
        }),
      insertInvoice: (invoice) =>
        run("insertInvoice", () => {
          if (this.invoices.has(invoice.id)) conflict(`invoice ${invoice.id}`);
          setIn(this.invoices, invoice.id, copyInvoice(invoice), undo);
          undo.push(this.invoiceOrder.add(scopeKey(invoice.merchantId, invoice.mode), invoice));
        }),
      lockInvoice: (id) => run("lockInvoice", () => this.pick(this.invoices.get(id), copyInvoice)),
      updateInvoice: (invoice) =>
        run("updateInvoice", () => {
          if (!this.invoices.has(invoice.id)) missing(`invoice ${invoice.id}`);
          setIn(this.invoices, invoice.id, copyInvoice(invoice), undo);
        }),
      insertAddress: (address) =>
        run("insertAddress", () => {
          const key = addressKey(address.mode, address.network, address.address);
          if (this.addresses.has(key)) conflict(`address ${address.address} on ${address.network} (${address.mode})`);
          setIn(this.addresses, key, copy(address), undo);
        }),
      updateAddress: (address) =>
        run("updateAddress", () => {
          const key = addressKey(address.mode, address.network, address.address);
          if (!this.addresses.has(key)) missing(`address ${address.address} on ${address.network} (${address.mode})`);
          setIn(this.addresses, key, copy(address), undo);
        }),
      lockDeposit: (mode, network, txHash, outputIndex) =>
        run("lockDeposit", () => {
          const id = this.depositIdByChainKey.get(depositKey(mode, network, txHash, outputIndex));
          return id === undefined ? null : this.pick(this.deposits.get(id), copy);
        }),
      insertUnlistedTransfer: (transfer) =>
        run("insertUnlistedTransfer", () => {
          const key = depositKey(transfer.mode, transfer.network, transfer.txHash, transfer.logIndex);
          if (this.unlistedTransfers.has(key)) return false;
          setIn(this.unlistedTransfers, key, copy(transfer), undo);
          return true;
        }),
      insertDeposit: (deposit) =>
        run("insertDeposit", () => {
          const chainKey = depositKey(deposit.mode, deposit.network, deposit.txHash, deposit.outputIndex);
          if (this.depositIdByChainKey.has(chainKey)) {
            conflict(`deposit ${deposit.txHash}:${deposit.outputIndex} on ${deposit.network} (${deposit.mode})`);
          }
          if (this.deposits.has(deposit.id)) conflict(`deposit ${deposit.id}`);
          setIn(this.deposits, deposit.id, copy(deposit), undo);
          setIn(this.depositIdByChainKey, chainKey, deposit.id, undo);
          pushIn(this.depositIdsByInvoice, deposit.invoiceId, deposit.id, undo);
        }),
      updateDeposit: (deposit) => run("updateDeposit", () => this.updateDeposit(deposit, undo)),
      postLedgerEntries: (entries, options) => run("postLedgerEntries", () => this.postLedgerEntries(entries, undo, options?.overdraw ?? false)),
      insertPayout: (payout) =>
        run("insertPayout", () => {
          if (this.payouts.has(payout.id)) conflict(`payout ${payout.id}`);
          setIn(this.payouts, payout.id, copy(payout), undo);
          undo.push(this.payoutOrder.add(scopeKey(payout.merchantId, payout.mode), payout));
        }),
      lockPayout: (id) => run("lockPayout", () => this.pick(this.payouts.get(id), copy)),
      updatePayout: (payout) =>
        run("updatePayout", () => {
          if (!this.payouts.has(payout.id)) missing(`payout ${payout.id}`);
          setIn(this.payouts, payout.id, copy(payout), undo);
        }),
      insertExchange: (exchange) =>
        run("insertExchange", () => {
          if (this.exchanges.has(exchange.id)) conflict(`exchange ${exchange.id}`);
          setIn(this.exchanges, exchange.id, copy(exchange), undo);
          undo.push(this.exchangeOrder.add(scopeKey(exchange.merchantId, exchange.mode), exchange));
        }),
      appendEvents: (events) =>
        run("appendEvents", () => {
          for (const event of events) {
            pushIn(this.eventsByScope, scopeKey(event.merchantId, event.mode), copyEvent(event), undo);
          }
        }),
      setCursor: (key, value) => run("setCursor", () => setIn(this.cursors, key, value, undo)),
      // Transactions run one at a time, so the name is held until this one ends, stored or not.
      lockCursor: (key) => run("lockCursor", () => this.cursors.get(key) ?? null),
      updateMerchant: (merchant) =>
        run("updateMerchant", () => {
          if (!this.merchants.has(merchant.id)) missing(`merchant ${merchant.id}`);
          setIn(this.merchants, merchant.id, copy(merchant), undo);
        }),
      insertPaymentLink: (link) =>
        run("insertPaymentLink", () => {
          if (this.paymentLinks.has(link.id)) conflict(`payment link ${link.id}`);
          setIn(this.paymentLinks, link.id, copyLink(link), undo);
          undo.push(this.linkOrder.add(scopeKey(link.merchantId, link.mode), link));
        }),
      lockPaymentLink: (id) => run("lockPaymentLink", () => this.pick(this.paymentLinks.get(id), copyLink)),
      updatePaymentLink: (link) =>
        run("updatePaymentLink", () => {
          if (!this.paymentLinks.has(link.id)) missing(`payment link ${link.id}`);
          setIn(this.paymentLinks, link.id, copyLink(link), undo);
        }),
      claimIdempotencyKey: (record, leaseMs) =>
        run("claimIdempotencyKey", () => {
          const key = idempotencyKey(record.merchantId, record.mode, record.key);
          const existing = this.idempotency.get(key);
          // One process: its own clock is the clock every user of this storage shares.
          const now = Date.now();
          const lapsed = existing?.state === "started" && existing.requestHash === record.requestHash && (this.leases.get(key) ?? 0) <= now;
          if (existing && existing.expiresAt > record.createdAt && !lapsed) return copy(existing);
          setIn(this.idempotency, key, copy(record), undo);
          setIn(this.leases, key, now + leaseMs, undo);
          return null;
        }),
      completeIdempotencyKey: (scope, key, leaseToken, responseStatus, responseBody) =>
        run("completeIdempotencyKey", () => {
          const id = idempotencyKey(scope.merchantId, scope.mode, key);
          const existing = this.idempotency.get(id);
          if (!existing || existing.leaseToken !== leaseToken) return false;
          setIn(this.idempotency, id, { ...existing, state: "completed", responseStatus, responseBody }, undo);
          return true;
        }),
      deleteIdempotencyKey: (scope, key, leaseToken) =>
        run("deleteIdempotencyKey", () => {
          const id = idempotencyKey(scope.merchantId, scope.mode, key);
          if (this.idempotency.get(id)?.leaseToken !== leaseToken) return;
          deleteIn(this.idempotency, id, undo);
          deleteIn(this.leases, id, undo);
        }),
      deleteExpiredIdempotencyKeys: (now, limit) =>
        run("deleteExpiredIdempotencyKeys", () => {
          let deleted = 0;
          for (const [key, record] of this.idempotency) {
            if (deleted >= limit) break;
            if (record.expiresAt > now) continue;
            deleteIn(this.idempotency, key, undo);
            deleteIn(this.leases, key, undo);
            deleted++;
          }
          return deleted;
        }),
      insertWebhookEndpoint: (endpoint) =>
        run("insertWebhookEndpoint", () => {
          if (this.webhookEndpoints.has(endpoint.id)) conflict(`webhook endpoint ${endpoint.id}`);
          setIn(this.webhookEndpoints, endpoint.id, copyEndpoint(endpoint), undo);
        }),
      lockWebhookEndpoint: (id) => run("lockWebhookEndpoint", () => this.pick(this.webhookEndpoints.get(id), copyEndpoint)),
      updateWebhookEndpoint: (endpoint) =>
        run("updateWebhookEndpoint", () => {
          if (!this.webhookEndpoints.has(endpoint.id)) missing(`webhook endpoint ${endpoint.id}`);
          setIn(this.webhookEndpoints, endpoint.id, copyEndpoint(endpoint), undo);
        }),
      deleteWebhookEndpoint: (id) =>
        run("deleteWebhookEndpoint", () => {
          if (!this.webhookEndpoints.has(id)) return false;
          deleteIn(this.webhookEndpoints, id, undo);
          return true;
        }),
      insertWebhookDeliveries: (deliveries) =>
        run("insertWebhookDeliveries", () => {
          for (const delivery of deliveries) this.insertDelivery(delivery, undo);
        }),
      queueWebhookDeliveries: (events, now) =>
        run("queueWebhookDeliveries", () => {
          for (const delivery of fanOut(events, (scope) => this.endpointsOf(scope), now)) this.insertDelivery(delivery, undo);
        }),
      lockWebhookDelivery: (id) => run("lockWebhookDelivery", () => this.pick(this.deliveries.get(id)?.record, copy)),
      updateWebhookDelivery: (delivery) => run("updateWebhookDelivery", () => this.updateDelivery(delivery, undo)),
      insertWebhookAttempt: (attempt) => run("insertWebhookAttempt", () => pushIn(this.attemptsByDelivery, attempt.deliveryId, copy(attempt), undo)),
      recordWebhookAttempt: (attempt, heldUntil, outcome) =>
        run("recordWebhookAttempt", () => {
          pushIn(this.attemptsByDelivery, attempt.deliveryId, copy(attempt), undo);
          const current = this.deliveries.get(attempt.deliveryId)?.record;
          if (!current) return;
          const held = current.status === "pending" && current.leaseUntil === heldUntil;
          if (held || outcome.status === "succeeded") this.updateDelivery({ ...current, ...outcome, attempts: current.attempts + 1 }, undo);
        }),
      claimWebhookDeliveries: (now, limit, leaseMs, perEndpoint) =>
        run("claimWebhookDeliveries", () => this.claimDeliveries(now, limit, leaseMs, perEndpoint, undo)),
      failPendingWebhookDeliveries: (endpointId, error, now) =>
        run("failPendingWebhookDeliveries", () => {
          const pending = [...(this.pendingByEndpoint.get(endpointId) ?? [])];
          for (const id of pending) {
            const { record } = this.deliveries.get(id)!;
            this.updateDelivery({ ...record, status: "failed", nextAttemptAt: null, leaseUntil: null, lastError: error, updatedAt: now }, undo);
          }
          return pending.length;
        }),
    };
  }

  private pick<T>(record: T | undefined, clone: (record: T) => T): T | null {
    return record === undefined ? null : clone(record);
  }

  private scoped<T extends { merchantId: string; mode: Mode }>(record: T | undefined, scope: Scope, clone: (record: T) => T): T | null {
    return record !== undefined && inScope(record, scope) ? clone(record) : null;
  }

  /**
   * One newest-first page of a scope's records from its ordered index; `take` filters and
   * copies. A cursor that is not a record of this scope gives an empty page.
   */
  private page<T extends { merchantId: string; mode: Mode; createdAt: number; id: string }>(
    index: CreatedIndex,
    table: Map<string, T>,
    scope: Scope,
    page: PageQuery,
    take: (record: T) => T | null,
  ): T[] {
    const cursor = page.after ? table.get(page.after) : undefined;
    if (page.after && (!cursor || !inScope(cursor, scope))) return [];
    return index.page(scopeKey(scope.merchantId, scope.mode), cursor ?? null, Math.max(0, page.limit), (id) => take(table.get(id)!));
  }

  /** The stored endpoints of a scope, in no particular order (not copies: callers copy). */
  private endpointsOf(scope: Scope): WebhookEndpointRecord[] {
    return [...this.webhookEndpoints.values()].filter((endpoint) => inScope(endpoint, scope));
  }

  private insertDelivery(delivery: WebhookDeliveryRecord, undo: Undo[]): void {
    if (this.deliveries.has(delivery.id)) conflict(`webhook delivery ${delivery.id}`);
    const position = this.deliveryPosition++;
    setIn(this.deliveries, delivery.id, { record: copy(delivery), position }, undo);
    pushIn(this.deliveryIdsByScope, scopeKey(delivery.merchantId, delivery.mode), delivery.id, undo);
    if (delivery.status === "pending") pushIn(this.pendingByEndpoint, delivery.endpointId, delivery.id, undo);
  }

  private updateDelivery(delivery: WebhookDeliveryRecord, undo: Undo[]): void {
    const stored = this.deliveries.get(delivery.id);
    if (!stored) missing(`webhook delivery ${delivery.id}`);
    setIn(this.deliveries, delivery.id, { record: copy(delivery), position: stored.position }, undo);
    const wasPending = stored.record.status === "pending";
    const isPending = delivery.status === "pending";
    if (wasPending === isPending) return;
    // The order of an endpoint's pending list does not matter: claims sort by due time and
    // insertion position (byDue).
    const queue = this.pendingByEndpoint.get(delivery.endpointId) ?? [];
    setIn(this.pendingByEndpoint, delivery.endpointId, isPending ? [...queue, delivery.id] : queue.filter((id) => id !== delivery.id), undo);
  }

  private claimDeliveries(now: number, limit: number, leaseMs: number, perEndpoint: number, undo: Undo[]): WebhookDeliveryRecord[] {
    // Per endpoint: what its leases leave of perEndpoint, filled by its earliest due candidates.
    const byMerchant = new Map<string, Array<{ stored: StoredDelivery; rank: number }>>();
    for (const queue of this.pendingByEndpoint.values()) {
      let free = perEndpoint;
      const due: StoredDelivery[] = [];
      for (const id of queue) {
        const stored = this.deliveries.get(id)!;
        const { leaseUntil, nextAttemptAt } = stored.record;
        if (leaseUntil !== null && leaseUntil > now) free--;
        else if (nextAttemptAt !== null && nextAttemptAt <= now) due.push(stored);
      }
      if (free <= 0 || due.length === 0) continue;
      due.sort(byDue);
      for (const [i, stored] of due.slice(0, free).entries()) {
        const list = byMerchant.get(stored.record.merchantId) ?? [];
        list.push({ stored, rank: i + 1 });
        byMerchant.set(stored.record.merchantId, list);
      }
    }
    // Turns: each merchant's first, then each one's second..., a merchant's own going round its endpoints.
    const chosen: Array<{ stored: StoredDelivery; turn: number }> = [];
    for (const candidates of byMerchant.values()) {
      candidates.sort((a, b) => a.rank - b.rank || byDue(a.stored, b.stored));
      for (const [i, { stored }] of candidates.entries()) chosen.push({ stored, turn: i + 1 });
    }
    chosen.sort((a, b) => a.turn - b.turn || byDue(a.stored, b.stored));
    return chosen.slice(0, Math.max(0, limit)).map(({ stored }) => {
      const claimed = { ...stored.record, leaseUntil: now + leaseMs };
      this.updateDelivery(claimed, undo);
      return copy(claimed);
    });
  }

  private deliveryPage(scope: Scope, filter: DeliveryFilter, page: PageQuery): WebhookDeliveryRecord[] {
    const ids = this.deliveryIdsByScope.get(scopeKey(scope.merchantId, scope.mode)) ?? [];
    let start = ids.length - 1;
    if (page.after) {
      const index = ids.lastIndexOf(page.after);
      if (index === -1) return [];
      start = index - 1;
    }
    const out: WebhookDeliveryRecord[] = [];
    for (let i = start; i >= 0 && out.length < page.limit; i--) {
      const { record } = this.deliveries.get(ids[i]!)!;
      if (filter.endpointId !== undefined && record.endpointId !== filter.endpointId) continue;
      if (filter.eventType !== undefined && record.eventType !== filter.eventType) continue;
      if (filter.status !== undefined && record.status !== filter.status) continue;
      out.push(copy(record));
    }
    return out;
  }

  private updateDeposit(deposit: DepositRecord, undo: Undo[]): void {
    const stored = this.deposits.get(deposit.id);
    if (!stored) missing(`deposit ${deposit.id}`);
    const oldKey = depositKey(stored.mode, stored.network, stored.txHash, stored.outputIndex);
    const newKey = depositKey(deposit.mode, deposit.network, deposit.txHash, deposit.outputIndex);
    if (newKey !== oldKey) {
      if (this.depositIdByChainKey.has(newKey)) conflict(`deposit ${deposit.txHash}:${deposit.outputIndex}`);
      deleteIn(this.depositIdByChainKey, oldKey, undo);
      setIn(this.depositIdByChainKey, newKey, deposit.id, undo);
    }
    if (deposit.invoiceId !== stored.invoiceId) {
      // Fresh arrays, so the undo restores the old ones untouched.
      const from = this.depositIdsByInvoice.get(stored.invoiceId) ?? [];
      setIn(
        this.depositIdsByInvoice,
        stored.invoiceId,
        from.filter((id) => id !== deposit.id),
        undo,
      );
      const to = this.depositIdsByInvoice.get(deposit.invoiceId) ?? [];
      setIn(this.depositIdsByInvoice, deposit.invoiceId, [...to, deposit.id], undo);
    }
    setIn(this.deposits, deposit.id, copy(deposit), undo);
  }

  private postLedgerEntries(entries: LedgerEntry[], undo: Undo[], overdraw: boolean): PostLedgerResult {
    if (entries.some((entry) => this.causeKeys.has(entry.causeKey))) return { status: "duplicate" };
    const batchKeys = new Set<string>();
    for (const entry of entries) {
      if (batchKeys.has(entry.causeKey)) {
        throw new Error(`memoryStorage: postLedgerEntries got causeKey "${entry.causeKey}" twice in one batch`);
      }
      batchKeys.add(entry.causeKey);
    }
    // The balance each touched asset would end with once the whole batch is applied, and the
    // batch's net change to it (only a lowering may be refused).
    const next = new Map<string, BalanceRecord>();
    const deltas = new Map<string, bigint>();
    for (const entry of entries) {
      const key = balanceKey(entry.merchantId, entry.mode, entry.asset);
      let balance = next.get(key);
      if (!balance) {
        const current = this.balances.get(key)?.amount ?? 0n;
        balance = { merchantId: entry.merchantId, mode: entry.mode, asset: entry.asset, amount: current, updatedAt: entry.createdAt };
        next.set(key, balance);
      }
      balance.amount += entry.amount;
      deltas.set(key, (deltas.get(key) ?? 0n) + entry.amount);
      if (entry.createdAt > balance.updatedAt) balance.updatedAt = entry.createdAt;
    }
    for (const [key, balance] of next) {
      if (!overdraw && deltas.get(key)! < 0n && balance.amount < 0n) return { status: "insufficient", asset: balance.asset };
    }
    for (const entry of entries) {
      this.causeKeys.add(entry.causeKey);
      undo.push(() => void this.causeKeys.delete(entry.causeKey));
      pushIn(this.ledgerByScope, scopeKey(entry.merchantId, entry.mode), copy(entry), undo);
    }
    for (const [key, balance] of next) setIn(this.balances, key, balance, undo);
    return { status: "posted" };
  }
}

/**
 * Storage kept in process memory: nothing survives a restart. Meant for tests, examples and
 * single-process trials; it is the reference implementation of the `Storage` contract.
 *
 * All transactions run one at a time (a FIFO mutex), which gives every `lock*` its meaning.
 * A transaction writes straight into the tables and keeps an undo log that is replayed if its
 * work throws. Reads made on the storage object itself wait their turn behind a running
 * transaction, so they only ever see committed data.
 *
 * A transaction's work must read and write through its `tx` only: calling the storage object
 * (`transaction` or a read) from inside it would wait for that very transaction. No async
 * context tracks this, because tracking one costs every promise in the process on Node 20.
 */
export function memoryStorage(): Storage {
  const tables = new Tables();
  const mutex = new Mutex();

  const outsideRead = async <T>(_method: string, read: () => T): Promise<T> => {
    if (mutex.idle) return read();
    await mutex.acquire();
    try {
      return read();
    } finally {
      mutex.release();
    }
  };

  return {
    ...tables.reads(outsideRead),

    async transaction<T>(work: (tx: StorageTransaction) => Promise<T>): Promise<T> {
      await mutex.acquire();
      const state = { active: true };
      const undo: Undo[] = [];
      const inTransaction = async <R>(method: string, operation: () => R): Promise<R> => {
        if (!state.active) {
          throw new Error(`memoryStorage: tx.${method}() was called after its transaction ended`);
        }
        return operation();
      };
      // Object.assign, not spread: spreading ~35 properties per transaction dominated its cost.
      const tx: StorageTransaction = Object.assign(tables.reads(inTransaction), tables.writes(inTransaction, undo));
      try {
        return await work(tx);
      } catch (error) {
        for (let i = undo.length - 1; i >= 0; i--) undo[i]?.();
        throw error;
      } finally {
        state.active = false;
        mutex.release();
      }
    },

    async close(): Promise<void> {},
  };
}
