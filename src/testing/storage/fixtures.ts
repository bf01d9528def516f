import { type CompleteStorageTransaction, hasStoragePart, type Scope, type Storage } from "../../core/ports/storage/index";
import type { AddressRecord, DepositRecord, UnlistedTransferRecord } from "../../core/deposits/records";
import type { AllowedAddressRecord, PayoutRecord } from "../../core/payouts/records";
import type { ApiKeyRecord, MerchantRecord } from "../../core/merchants/records";
import type { AuditEntryRecord } from "../../core/audit/records";
import type { EventRecord, WebhookAttemptRecord, WebhookDeliveryRecord, WebhookEndpointRecord } from "../../core/webhooks/records";
import type { ExchangeRecord } from "../../core/exchanges/records";
import type { IdempotencyRecord } from "../../core/idempotency/records";
import type { InvoiceRecord } from "../../core/invoices/records";
import type { LedgerEntry } from "../../core/ledger/records";
import type { PaymentLinkRecord } from "../../core/payment-links/records";

/**
 * Records for storage tests: each builder returns a complete, valid record of merchant `m_1` in
 * test mode, with any field overridden. Exported so that an adapter's own extra tests can use
 * the same shapes as the conformance suite.
 */

/** The clock of every fixture: 2023-11-14T22:13:20Z. */
export const T0 = 1_700_000_000_000;
/** Merchant m_1 in test mode: the scope of every fixture. */
export const TEST: Scope = { merchantId: "m_1", mode: "test" };
/** Merchant m_1 in live mode. */
export const LIVE: Scope = { merchantId: "m_1", mode: "live" };
/** Another merchant, for isolation tests. */
export const OTHER: Scope = { merchantId: "m_2", mode: "test" };

export const merchant = (over: Partial<MerchantRecord> = {}): MerchantRecord => ({
  id: "m_1",
  name: "Shop",
  settleCurrency: null,
  payoutApproval: null,
  payoutAllowlist: false,
  createdAt: T0,
  ...over,
});

export const apiKey = (over: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  id: "key_1",
  merchantId: "m_1",
  mode: "test",
  hash: "hash_1",
  prefix: "sk_test_AbCd",
  createdAt: T0,
  revokedAt: null,
  ...over,
});

export const invoice = (over: Partial<InvoiceRecord> = {}): InvoiceRecord => ({
  id: "inv_1",
  merchantId: "m_1",
  mode: "test",
  status: "PENDING",
  amount: 10_000n,
  amountCurrency: "USD",
  acceptedCoins: ["BTC", "USDT"],
  coin: "BTC",
  network: "bitcoin",
  address: "bc1qexample",
  rate: 6_500_000_000_000n,
  rateAt: T0 - 1_500,
  rateSources: ["coinbase", "kraken"],
  payAmount: 15_385n,
  feePaidByPayer: false,
  underPaidCoverTenths: 0,
  isWhiteLabel: true,
  returnUrl: null,
  paymentUrl: "https://shop.example/pay/inv_1",
  metadata: { orderId: "o_1", nested: { tags: ["a"], unicode: "€ ✓", empty: {} } },
  settleCurrency: null,
  paymentLinkId: null,
  receivedAmount: 0n,
  reversedAmount: 0n,
  txHash: null,
  late: false,
  failureReason: null,
  expiresAt: T0 + 3_600_000,
  createdAt: T0,
  updatedAt: T0,
  ...over,
});

/** A hosted invoice: coin, network, address, rate (with its time and sources) and payAmount still open. */
export const hostedInvoice = (over: Partial<InvoiceRecord> = {}): InvoiceRecord =>
  invoice({
    acceptedCoins: null,
    coin: null,
    network: null,
    address: null,
    rate: null,
    rateAt: null,
    rateSources: null,
    payAmount: null,
    isWhiteLabel: false,
    metadata: null,
    ...over,
  });

export const address = (over: Partial<AddressRecord> = {}): AddressRecord => ({
  mode: "test",
  network: "bitcoin",
  address: "bc1qexample",
  coin: "BTC",
  merchantId: "m_1",
  invoiceId: "inv_1",
  createdAt: T0,
  ...over,
});

export const deposit = (over: Partial<DepositRecord> = {}): DepositRecord => ({
  id: "dep_1",
  merchantId: "m_1",
  mode: "test",
  invoiceId: "inv_1",
  coin: "BTC",
  network: "bitcoin",
  address: "bc1qexample",
  txHash: "tx_1",
  outputIndex: 0,
  amount: 15_385n,
  confirmations: 0,
  blockHash: null,
  status: "PENDING",
  countsTowardInvoice: true,
  fee: 76n,
  creditedAt: null,
  creditedAsset: null,
  creditedAmount: 0n,
  reversals: 0,
  seenAt: T0,
  updatedAt: T0,
  ...over,
});

export const entry = (over: Partial<LedgerEntry> = {}): LedgerEntry => ({
  id: "le_1",
  merchantId: "m_1",
  mode: "test",
  asset: "BTC",
  amount: 100n,
  kind: "deposit",
  causeKey: "deposit:dep_1",
  createdAt: T0,
  ...over,
});

export const payout = (over: Partial<PayoutRecord> = {}): PayoutRecord => ({
  id: "po_1",
  merchantId: "m_1",
  mode: "test",
  status: "PROCESSING",
  coin: "BTC",
  network: "bitcoin",
  address: "bc1qdest",
  amount: 50n,
  fee: 5n,
  refundOf: null,
  refundDepositId: null,
  requestedBy: null,
  reviewedBy: null,
  pendingReason: null,
  claim: null,
  txHash: null,
  failureReason: null,
  createdAt: T0,
  updatedAt: T0,
  ...over,
});

export const exchange = (over: Partial<ExchangeRecord> = {}): ExchangeRecord => ({
  id: "ex_1",
  merchantId: "m_1",
  mode: "test",
  status: "SUCCESS",
  fromCoin: "BTC",
  toCoin: "USDT",
  amount: 10n,
  rate: 65_000n,
  toAmount: 650_000n,
  invoiceId: null,
  createdAt: T0,
  ...over,
});

export const event = (over: Partial<EventRecord> = {}): EventRecord => ({
  id: "evt_1",
  merchantId: "m_1",
  mode: "test",
  type: "payment.created",
  invoiceId: "inv_1",
  data: { id: "inv_1", amount: "100.00", metadata: { orderId: "o_1" } },
  createdAt: T0,
  ...over,
});

export const paymentLink = (over: Partial<PaymentLinkRecord> = {}): PaymentLinkRecord => ({
  id: "pl_1",
  merchantId: "m_1",
  mode: "test",
  amount: 2_500n,
  amountCurrency: "USD",
  acceptedCoins: ["BTC"],
  feePaidByPayer: true,
  underPaidCoverTenths: 10,
  lifeTimeMinutes: 60,
  returnUrl: "https://shop.example/thanks",
  metadata: { sku: "tee-42" },
  settleCurrency: "USDT",
  active: true,
  createdAt: T0,
  updatedAt: T0,
  ...over,
});

export const idempotency = (over: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
  merchantId: "m_1",
  mode: "test",
  key: "idem_1",
  requestHash: "hash_of_request",
  state: "started",
  responseStatus: null,
  responseBody: null,
  createdAt: T0,
  expiresAt: T0 + 86_400_000,
  leaseToken: "lease_1",
  ...over,
});

/** The lease the suite claims idempotency keys with: far longer than any test runs. */
export const LEASE = 60_000;

export const endpoint = (over: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord => ({
  id: "we_1",
  merchantId: "m_1",
  mode: "test",
  url: "https://shop.example/hooks",
  events: ["payment.completed", "payment.failed"],
  secrets: [{ secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", createdAt: T0, expiresAt: null }],
  status: "enabled",
  disabledReason: null,
  createdAt: T0,
  updatedAt: T0,
  ...over,
});

export const delivery = (over: Partial<WebhookDeliveryRecord> = {}): WebhookDeliveryRecord => ({
  id: "msg_1",
  merchantId: "m_1",
  mode: "test",
  endpointId: "we_1",
  eventId: "evt_1",
  eventType: "payment.completed",
  payload: '{"type":"payment.completed","timestamp":"2023-11-14T22:13:20.000Z","data":{"id":"inv_1"}}',
  status: "pending",
  attempts: 0,
  nextAttemptAt: T0,
  leaseUntil: null,
  lastStatusCode: null,
  lastError: null,
  createdAt: T0,
  updatedAt: T0,
  ...over,
});

export const attempt = (over: Partial<WebhookAttemptRecord> = {}): WebhookAttemptRecord => ({
  id: "att_1",
  deliveryId: "msg_1",
  at: T0,
  statusCode: 500,
  durationMs: 42,
  error: "the endpoint answered 500",
  ...over,
});

/** An unlisted-token transfer of merchant m_1 in test mode, with any field overridden. */
export const unlistedTransfer = (over: Partial<UnlistedTransferRecord> = {}): UnlistedTransferRecord => ({
  id: "unl_1",
  mode: "test",
  network: "ETH",
  token: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
  address: "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
  txHash: "0xtx_1",
  logIndex: 3,
  // Raw units of an 18-decimal token can exceed 2^64 (and anything a float holds exactly).
  amount: 2n ** 200n + 7n,
  blockNumber: 19_000_000,
  merchantId: "m_1",
  invoiceId: "inv_1",
  coin: "USDT",
  seenAt: T0,
  ...over,
});

/** A promise with its resolve exposed, to hold a transaction open. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

export const auditEntryOf = (over: Partial<AuditEntryRecord> = {}): AuditEntryRecord => ({
  id: "aud_1",
  actor: "user_1",
  action: "payout.approved",
  recordId: "po_1",
  merchantId: "m_1",
  mode: "test",
  at: T0,
  ...over,
});

/** An address of m_1's payout allowlist in test mode, proposed and not yet approved. */
export const allowedAddress = (over: Partial<AllowedAddressRecord> = {}): AllowedAddressRecord => ({
  id: "pad_1",
  merchantId: "m_1",
  mode: "test",
  network: "ETH",
  address: "0x52908400098527886E0F7030069857D2E4169EE7",
  addressKey: "0x52908400098527886e0f7030069857d2e4169ee7",
  label: "Treasury",
  proposedBy: "user_1",
  approvedBy: null,
  approvedAt: null,
  usableAt: null,
  createdAt: T0,
  ...over,
});

/** The ids of some records, in order: what most list assertions compare. */
export const ids = (records: ReadonlyArray<{ id: string }>): string[] => records.map((record) => record.id);

/** Waits `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** One of each record, all in TEST (merchant m_1, test mode). */
export async function seed(storage: Storage): Promise<void> {
  await storage.transaction(async (tx) => {
    await tx.insertMerchant(merchant());
    await tx.insertApiKey(apiKey());
    await tx.insertInvoice(invoice());
    await tx.insertAddress(address());
    await tx.insertDeposit(deposit());
    await tx.postLedgerEntries([entry()]);
    await tx.insertPayout(payout());
    await tx.insertExchange(exchange());
    await tx.appendEvents([event()]);
    await tx.setCursor("bitcoin", "100");
    if (hasStoragePart(tx, "paymentLinks", true)) await tx.insertPaymentLink(paymentLink());
    await tx.insertWebhookEndpoint(endpoint());
    await tx.insertWebhookDeliveries([delivery()]);
    await tx.insertWebhookAttempt(attempt());
    await tx.insertAuditEntry(auditEntryOf());
    await tx.insertAllowedAddress(allowedAddress());
    if ((await tx.claimIdempotencyKey(idempotency(), LEASE)) !== null) throw new Error("seed: a fresh idempotency key was not stored");
  });
}

/** Everything readable about the seeded records, to compare state before and after. */
export async function snapshot(storage: Storage) {
  return {
    merchant: await storage.getMerchant("m_1"),
    merchant2: await storage.getMerchant("m_2"),
    keys: await storage.listApiKeys("m_1"),
    // The optional parts' reads, when the storage has them (undefined on both sides otherwise).
    auditLog: await storage.listAuditLog?.({ limit: 10 }),
    allowlist: await storage.listAllowedAddresses("m_1"),
    keyByHash: await storage.findApiKeyByHash("hash_2"),
    invoice: await storage.getInvoice(TEST, "inv_1"),
    invoice2: await storage.getInvoice(TEST, "inv_2"),
    invoices: await storage.listInvoices(TEST, {}, { limit: 10 }),
    address: await storage.findAddress("test", "bitcoin", "bc1qother"),
    deposits: await storage.listDepositsForInvoice("inv_1"),
    deposits2: await storage.listDepositsForInvoice("inv_2"),
    pending: await storage.sumPendingDeposits(TEST),
    balances: await storage.listBalances(TEST),
    ledger: await storage.listLedgerEntries(TEST),
    events: await storage.listEvents(TEST),
    payout: await storage.getPayout(TEST, "po_1"),
    payouts: await storage.listPayouts(TEST, { kind: "payout" }, { limit: 10 }),
    refunds: await storage.listRefunds("inv_1"),
    exchanges: await storage.listExchanges(TEST, { limit: 10 }),
    cursor: await storage.getCursor("bitcoin"),
    link: await storage.findPaymentLink?.("pl_1"),
    links: await storage.listPaymentLinks?.(TEST, { limit: 10 }),
    endpoints: await storage.listWebhookEndpoints(TEST),
    deliveries: await storage.listWebhookDeliveries(TEST, {}, { limit: 10 }),
    attempts: await storage.listWebhookAttempts("msg_1"),
  };
}

/**
 * The `tx` argument of `Storage.transaction`'s work, with every optional part: the suite's
 * cases of an optional part are registered only for an adapter that has it.
 */
export type Tx = CompleteStorageTransaction;
