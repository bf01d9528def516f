import { PaymentError } from "../../../errors";

/**
 * The optional parts of `Storage`, each the members it adds (reads on `Storage` and on its
 * transactions; `writes` on transactions only). An adapter implements a part whole or not at
 * all: every member, or none (`runStorageAdapterTests` refuses half a part). Without a part the
 * features that need it answer `storage_feature_unavailable` (HTTP 501), or fall back where
 * docs/storage.md says so; nothing else changes.
 */
export const OPTIONAL_STORAGE_PARTS = {
  /** `ExportReads`: the admin exports (`payments.admin.export`, the `export` command, the dashboard's downloads). */
  exports: {
    title: "ExportReads",
    reads: ["exportInvoices", "exportDeposits", "exportPayouts", "exportExchanges", "exportLedgerEntries", "exportAuditLog"],
    writes: [],
  },
  /** `ReconcileReads`: the reconcile report (`payments.admin.reconcile`, the `reconcile` command). */
  reconcile: { title: "ReconcileReads", reads: ["depositTotals", "payoutTotals", "balanceTotals", "unlistedTotals"], writes: [] },
  /** `NotableDepositReads` and `UnlistedTransferReads`: the operator report (`payments.admin.report`, the `report` command). */
  operatorReport: { title: "NotableDepositReads and UnlistedTransferReads", reads: ["listNotableDeposits", "listUnlistedTransfers"], writes: [] },
  /** `WebhookBacklogReads`: the webhook backlog of health and metrics (reported unknown without it). */
  webhookBacklog: { title: "WebhookBacklogReads", reads: ["webhookBacklog"], writes: [] },
  /** `AuditLogReads`: listing the audit log (`payments.admin.listAuditLog`, the dashboard's audit page). */
  auditLog: { title: "AuditLogReads", reads: ["listAuditLog"], writes: [] },
  /** `OperatorListReads`: the operator's lists across merchants (merchant and delivery lists of the CLI and admin tools). */
  operatorLists: { title: "OperatorListReads", reads: ["listMerchants", "listAllWebhookDeliveries"], writes: [] },
  /** `SubscriptionStore`: recurring billing (`/v1/subscriptions`, the payer's subscription page, the billing round). */
  subscriptions: {
    title: "SubscriptionStore",
    reads: ["getSubscription", "findSubscriptionByPayerToken", "listSubscriptions", "listDueSubscriptions", "listSubscriptionPeriods"],
    writes: ["insertSubscription", "lockSubscription", "updateSubscription", "insertSubscriptionPeriod", "updateSubscriptionPeriod"],
  },
  /** `PaymentLinkStore`: payment links (`/v1/payment-links` and the links' public pages). */
  paymentLinks: {
    title: "PaymentLinkStore",
    reads: ["getPaymentLink", "findPaymentLink", "listPaymentLinks"],
    writes: ["insertPaymentLink", "lockPaymentLink", "updatePaymentLink"],
  },
} as const;

/** The name of one optional part of `Storage`, e.g. `"exports"`. */
export type StoragePart = keyof typeof OPTIONAL_STORAGE_PARTS;

/** The members of one optional part, reads and writes. */
export type StoragePartMember<P extends StoragePart = StoragePart> =
  | (typeof OPTIONAL_STORAGE_PARTS)[P]["reads"][number]
  | (typeof OPTIONAL_STORAGE_PARTS)[P]["writes"][number];

/** `S` (a `Storage` or a `StorageTransaction`) known to have part `P`: its members of the part are present. */
export type WithStoragePart<S, P extends StoragePart> = S & Required<Pick<S, Extract<StoragePartMember<P>, keyof S>>>;

/** Every optional part's name, in the order of {@link OPTIONAL_STORAGE_PARTS}. */
export const STORAGE_PARTS = Object.keys(OPTIONAL_STORAGE_PARTS) as StoragePart[];

/**
 * Whether `target` has part `part`: every read of the part is a function on it, and on a
 * transaction (`writes: true`) every write too.
 */
export function hasStoragePart<S extends object, P extends StoragePart>(target: S, part: P, writes = false): target is WithStoragePart<S, P> {
  const { reads, writes: written } = OPTIONAL_STORAGE_PARTS[part];
  const members: readonly string[] = writes ? [...reads, ...written] : reads;
  return members.every((name) => typeof (target as Record<string, unknown>)[name] === "function");
}

/** The parts `storage` has (its reads; a part with some members missing is not had). */
export function storageParts(storage: object): StoragePart[] {
  return STORAGE_PARTS.filter((part) => hasStoragePart(storage, part));
}

/**
 * The coded error of a feature that needs a part the storage does not provide: HTTP 501
 * `storage_feature_unavailable`, naming the feature, the part and what to implement.
 */
export function storageFeatureUnavailable(part: StoragePart, feature: string): PaymentError {
  const { title, reads, writes } = OPTIONAL_STORAGE_PARTS[part];
  const members = [...reads, ...writes].join(", ");
  return new PaymentError(
    "storage_feature_unavailable",
    `${feature} needs the "${part}" part of the storage (${title}), which this storage does not provide: implement ${members} on the storage (see docs/storage.md, "Optional parts").`,
  );
}

/**
 * `target` with part `part` (its reads; with `writes`, on a transaction, its writes too), or
 * the `storage_feature_unavailable` error for `feature` when it lacks it.
 */
export function requireStoragePart<S extends object, P extends StoragePart>(target: S, part: P, feature: string, writes = false): WithStoragePart<S, P> {
  if (!hasStoragePart(target, part, writes)) throw storageFeatureUnavailable(part, feature);
  return target;
}
