import type { AddressRecord, DepositRecord, UnlistedTransferRecord } from "../../../core/deposits/records";
import type { AllowedAddressRecord, PayoutRecord } from "../../../core/payouts/records";
import type { ApiKeyRecord, MerchantRecord, Mode } from "../../../core/merchants/records";
import type { AuditEntryRecord } from "../../../core/audit/records";
import type { BalanceRecord, LedgerEntry } from "../../../core/ledger/records";
import type { EventRecord, WebhookAttemptRecord, WebhookDeliveryRecord, WebhookEndpointRecord } from "../../../core/webhooks/records";
import type { ExchangeRecord } from "../../../core/exchanges/records";
import type { IdempotencyRecord } from "../../../core/idempotency/records";
import type { InvoiceRecord } from "../../../core/invoices/records";
import type { PaymentLinkRecord } from "../../../core/payment-links/records";
import type { SubscriptionPeriodRecord, SubscriptionRecord } from "../../../core/subscriptions/records";
import { CreatedIndex } from "./created-index";

/**
 * Runs one storage method: inside a transaction it refuses a tx whose transaction ended, outside
 * one it waits for the running transaction. `method` names the call in that refusal.
 */
export type Run = <T>(method: string, operation: () => T) => Promise<T>;

/** Reverts one write of a transaction; run newest first on rollback. */
export type Undo = () => void;

/** The writes of a part: its methods that a transaction has and the storage object has not. */
export type Writes<Store, Reads> = Omit<Store, keyof Reads>;

// NUL cannot appear in ids, networks or addresses, so joined keys never collide.
const SEP = "\u0000";
/** The key of a (merchant, mode) scope in the per-scope tables. */
export const scopeKey = (merchantId: string, mode: Mode): string => merchantId + SEP + mode;
export const balanceKey = (merchantId: string, mode: Mode, asset: string): string => merchantId + SEP + mode + SEP + asset;
export const addressKey = (mode: Mode, network: string, address: string): string => mode + SEP + network + SEP + address;
/** A transfer's chain identity: a deposit's (with its output index) or an unlisted transfer's (with its log index). */
export const chainKey = (mode: Mode, network: string, txHash: string, index: number): string => mode + SEP + network + SEP + txHash + SEP + String(index);
export const idempotencyKey = (merchantId: string, mode: Mode, key: string): string => merchantId + SEP + mode + SEP + key;

/** A delivery as the log keeps it, with its place in insertion order. */
export interface StoredDelivery {
  record: WebhookDeliveryRecord;
  position: number;
}

/**
 * The tables and indexes, as plain maps. Reads are synchronous; writes go through `setIn`,
 * `deleteIn` and `pushIn`, which log how to undo themselves.
 */
export class Tables {
  readonly merchants = new Map<string, MerchantRecord>();
  readonly auditLog = new Map<string, AuditEntryRecord>();
  /** The payout allowlists' entries, by id. */
  readonly allowedAddresses = new Map<string, AllowedAddressRecord>();
  readonly apiKeys = new Map<string, ApiKeyRecord>();
  readonly apiKeyIdByHash = new Map<string, string>();
  readonly apiKeyIdsByMerchant = new Map<string, string[]>();
  readonly invoices = new Map<string, InvoiceRecord>();
  readonly invoiceOrder = new CreatedIndex();
  readonly addresses = new Map<string, AddressRecord>();
  readonly deposits = new Map<string, DepositRecord>();
  readonly depositIdByChainKey = new Map<string, string>();
  readonly depositIdsByInvoice = new Map<string, string[]>();
  readonly ledgerByScope = new Map<string, LedgerEntry[]>();
  readonly causeKeys = new Set<string>();
  readonly balances = new Map<string, BalanceRecord>();
  readonly payouts = new Map<string, PayoutRecord>();
  readonly payoutOrder = new CreatedIndex();
  readonly exchanges = new Map<string, ExchangeRecord>();
  readonly exchangeOrder = new CreatedIndex();
  readonly paymentLinks = new Map<string, PaymentLinkRecord>();
  readonly linkOrder = new CreatedIndex();
  readonly webhookEndpoints = new Map<string, WebhookEndpointRecord>();
  readonly eventsByScope = new Map<string, EventRecord[]>();
  readonly deliveries = new Map<string, StoredDelivery>();
  /** Delivery ids per scope, in insertion order (the log reads it backwards). */
  readonly deliveryIdsByScope = new Map<string, string[]>();
  /** Pending delivery ids per endpoint (claims order them by due time, then insertion position). */
  readonly pendingByEndpoint = new Map<string, string[]>();
  readonly attemptsByDelivery = new Map<string, WebhookAttemptRecord[]>();
  /** Per endpoint, its latest attempt's outcome (by the outcome's time): whether it succeeded. */
  readonly endpointOutcomes = new Map<string, { at: number; succeeded: boolean }>();
  /** The insertion position the next delivery gets. Never rolled back: positions only need to grow. */
  deliveryPosition = 0;
  readonly idempotency = new Map<string, IdempotencyRecord>();
  /** When each idempotency key's lease lapses (epoch ms): storage bookkeeping, not part of the record. */
  readonly leases = new Map<string, number>();
  readonly cursors = new Map<string, string>();
  /** By chain identity (chainKey with the log index), in the order stored. */
  readonly unlistedTransfers = new Map<string, UnlistedTransferRecord>();
  // Subscriptions
  readonly subscriptions = new Map<string, SubscriptionRecord>();
  readonly subscriptionOrder = new CreatedIndex();
  /** Billing periods by (subscription id, index): the key that allows one per period. */
  readonly subscriptionPeriods = new Map<string, SubscriptionPeriodRecord>();
}

/** Sets `key` in `map`, logging how to put back what was there. */
export function setIn<K, V>(map: Map<K, V>, key: K, value: V, undo: Undo[]): void {
  const previous = map.get(key);
  map.set(key, value);
  undo.push(previous === undefined ? () => void map.delete(key) : () => void map.set(key, previous));
}

/** Deletes `key` from `map`, logging how to put it back. */
export function deleteIn<K, V>(map: Map<K, V>, key: K, undo: Undo[]): void {
  const previous = map.get(key);
  if (previous === undefined) return;
  map.delete(key);
  undo.push(() => void map.set(key, previous));
}

/** Appends `value` to the list under `key` (created if missing), logging how to take it off. */
export function pushIn<K, V>(map: Map<K, V[]>, key: K, value: V, undo: Undo[]): void {
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

/** Refuses a write that a unique key forbids. */
export function conflict(what: string): never {
  throw new Error(`memoryStorage: ${what} exists already (unique constraint)`);
}

/** Refuses an update of a record that does not exist. */
export function missing(what: string): never {
  throw new Error(`memoryStorage: cannot update ${what}: no such record`);
}
