import type { AddressReads, AddressStore } from "./addresses";
import type { AllowlistReads, AllowlistStore } from "./allowlist";
import type { AuditLogReads, AuditLogStore } from "./audit-log";
import type { CursorReads, CursorStore } from "./cursors";
import type { DepositReads, DepositStore, NotableDepositReads } from "./deposits";
import type { ExchangeReads, ExchangeStore } from "./exchanges";
import type { ExportReads } from "./exports";
import type { IdempotencyStore } from "./idempotency";
import type { InvoiceReads, InvoiceStore } from "./invoices";
import type { LedgerReads, LedgerStore } from "./ledger";
import type { MerchantReads, MerchantStore } from "./merchants";
import type { OperatorListReads, StorageMigrationReport } from "./operator-lists";
import type { PaymentLinkReads, PaymentLinkStore } from "./payment-links";
import type { PayoutReads, PayoutStore } from "./payouts";
import type { ReconcileReads } from "./reconcile";
import type { SubscriptionReads, SubscriptionStore } from "./subscriptions";
import type { UnlistedTransferReads, UnlistedTransferStore } from "./unlisted-transfers";
import type { WebhookBacklogReads } from "./webhook-backlog";
import type { WebhookEndpointReads, WebhookEndpointStore } from "./webhook-endpoints";
import type { WebhookOutboxReads, WebhookOutboxStore } from "./webhook-outbox";

export type { AddressReads, AddressStore } from "./addresses";
export type { AllowlistReads, AllowlistStore } from "./allowlist";
export type { AuditLogQuery, AuditLogReads, AuditLogStore } from "./audit-log";
export type { CursorReads, CursorStore } from "./cursors";
export type { DepositReads, DepositStore, NotableDepositQuery, NotableDepositReads } from "./deposits";
export type { ExchangeReads, ExchangeStore } from "./exchanges";
export type { ExportCursor, ExportQuery, ExportReads } from "./exports";
export type { IdempotencyStore } from "./idempotency";
export type { InvoiceFilter, InvoiceReads, InvoiceStore } from "./invoices";
export type { LedgerReads, LedgerStore, PostLedgerOptions, PostLedgerResult } from "./ledger";
export type { ApiKeyMatch, MerchantReads, MerchantStore } from "./merchants";
export type { OperatorDeliveryFilter, OperatorListReads, StorageMigrationReport } from "./operator-lists";
export type { PaymentLinkReads, PaymentLinkStore } from "./payment-links";
export type { PayoutFilter, PayoutReads, PayoutStore } from "./payouts";
export {
  hasStoragePart,
  OPTIONAL_STORAGE_PARTS,
  requireStoragePart,
  STORAGE_PARTS,
  storageFeatureUnavailable,
  storageParts,
  type StoragePart,
  type StoragePartMember,
  type WithStoragePart,
} from "./parts";
export type { PageQuery, Scope } from "./scope";
export type { BalanceTotal, DepositTotal, PayoutTotal, ReconcileReads, RecordTotal, UnlistedTotal } from "./reconcile";
export type { SubscriptionFilter, SubscriptionReads, SubscriptionStore } from "./subscriptions";
export type { UnlistedTransferReads, UnlistedTransferStore } from "./unlisted-transfers";
export type { WebhookBacklog, WebhookBacklogReads } from "./webhook-backlog";
export type { WebhookEndpointReads, WebhookEndpointStore } from "./webhook-endpoints";
export type { DeliveryFilter, EventLogPage, WebhookAttemptOutcome, WebhookOutboxReads, WebhookOutboxStore } from "./webhook-outbox";

/**
 * The reads every adapter implements: what the service needs to take payments, move money and
 * send webhooks. Outside a transaction they see committed data only, and every commit that came
 * before them (a cache must never answer from before a commit); inside one they also see the
 * transaction's own writes. Every `get`/`find` returns null when nothing matches, and every list
 * is empty, never throwing for "not found". Records come back as copies: mutating one changes
 * nothing stored.
 */
export interface RequiredStorageReads
  extends MerchantReads,
    InvoiceReads,
    AddressReads,
    DepositReads,
    LedgerReads,
    PayoutReads,
    ExchangeReads,
    WebhookEndpointReads,
    WebhookOutboxReads,
    CursorReads,
    AllowlistReads {}

/**
 * The reads of the optional parts (see `OPTIONAL_STORAGE_PARTS`), each member optional: the
 * operator's read models (exports, reconcile, the operator report, the webhook backlog, the
 * audit log's list, the operator lists) and the reads of two features (subscriptions, payment
 * links). An adapter implements a part whole or not at all; the built-in adapters implement
 * every part.
 */
export interface OptionalStorageReads
  extends Partial<ExportReads>,
    Partial<ReconcileReads>,
    Partial<NotableDepositReads>,
    Partial<UnlistedTransferReads>,
    Partial<WebhookBacklogReads>,
    Partial<AuditLogReads>,
    Partial<OperatorListReads>,
    Partial<SubscriptionReads>,
    Partial<PaymentLinkReads> {}

/** Every read: the required ones, and the optional parts' (present when the storage has the part). */
export interface StorageReads extends RequiredStorageReads, OptionalStorageReads {}

/**
 * A unit of work: every part, reads and writes. Everything written through it becomes visible
 * together when the function given to `Storage.transaction` resolves, and none of it if that
 * function throws. `lock*` methods return the current record and hold it until the
 * transaction ends, so two transactions that lock the same record run one after the other.
 * Records are stored as copies: mutating one after passing it in changes nothing stored. A
 * write that a unique key refuses throws (here, or at the latest when the transaction commits,
 * which then writes nothing); an update of a record that does not exist throws. The writes of
 * the optional parts (subscriptions, payment links) are present when the storage has the part.
 */
export interface StorageTransaction
  extends StorageReads,
    MerchantStore,
    InvoiceStore,
    AddressStore,
    DepositStore,
    LedgerStore,
    PayoutStore,
    ExchangeStore,
    WebhookEndpointStore,
    WebhookOutboxStore,
    IdempotencyStore,
    CursorStore,
    UnlistedTransferStore,
    AuditLogStore,
    AllowlistStore,
    Partial<SubscriptionStore>,
    Partial<PaymentLinkStore> {}

/** A transaction with every optional part: what the built-in adapters' transactions are. */
export type CompleteStorageTransaction = StorageTransaction & Required<OptionalStorageReads> & SubscriptionStore & PaymentLinkStore;

/**
 * Where the service keeps everything: one object with every part's reads, and `transaction`
 * for every change. Adapters: `postgresStorage()` (a PostgreSQL server or PGlite; the embedded
 * default), `memoryStorage()` (process memory), both with every optional part. A custom adapter
 * implements this one object: the required reads and writes, and any optional part it wants
 * (docs/storage.md, "Optional parts"); `runStorageAdapterTests` (express-crypto-pay/testing)
 * checks it keeps the contract of every part it has.
 */
export interface Storage extends StorageReads {
  /**
   * Runs `work` as one atomic unit: its writes commit together when it resolves and are all
   * discarded when it throws (the error is rethrown). Transactions that lock the same record
   * are serialized. `work` must not call `transaction` again, and must not use its `tx` after
   * it settled (a call on it then rejects).
   */
  transaction<T>(work: (tx: StorageTransaction) => Promise<T>): Promise<T>;
  /**
   * Brings the database's schema up to date and reports the steps applied (the operator's
   * `migrate` command). Optional: a storage with no schema (memory) has nothing to migrate.
   */
  migrate?(): Promise<StorageMigrationReport>;
  /** Releases connections and timers. Further calls may fail. */
  close(): Promise<void>;
}

/**
 * A storage with every optional part, as the built-in adapters are: its transactions are
 * `CompleteStorageTransaction`s.
 */
export type CompleteStorage = Omit<Storage, "transaction"> &
  Required<OptionalStorageReads> & {
    /** As `Storage.transaction`, with a transaction that has every optional part. */
    transaction<T>(work: (tx: CompleteStorageTransaction) => Promise<T>): Promise<T>;
  };
