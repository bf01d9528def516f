import { afterEach, beforeEach, describe } from "vitest";
import type { Storage } from "../core/ports/storage/index";
import { addressTests } from "./storage/addresses";
import { allowlistTests } from "./storage/allowlist";
import { auditLogTests } from "./storage/audit-log";
import type { SuiteContext } from "./storage/context";
import { cursorTests } from "./storage/cursors";
import { depositTests } from "./storage/deposits";
import { exchangeTests } from "./storage/exchanges";
import { exportTests } from "./storage/exports";
import { idempotencyTests } from "./storage/idempotency";
import { invoiceTests } from "./storage/invoices";
import { ledgerTests } from "./storage/ledger";
import { merchantTests } from "./storage/merchants";
import { operatorListTests } from "./storage/operator-lists";
import { paymentLinkTests } from "./storage/payment-links";
import { subscriptionTests } from "./storage/subscriptions";
import { payoutTests } from "./storage/payouts";
import { reconcileTests } from "./storage/reconcile";
import { transactionTests } from "./storage/transactions";
import { unlistedTransferTests } from "./storage/unlisted-transfers";
import { webhookBacklogTests } from "./storage/webhook-backlog";
import { webhookEndpointTests } from "./storage/webhook-endpoints";
import { webhookOutboxTests } from "./storage/webhook-outbox";

/** Options of {@link runStorageAdapterTests}. */
export interface StorageAdapterTestOptions {
  /** The name the suite is reported under. Default "storage adapter". */
  name?: string;
  /**
   * A fresh, empty storage for one test, called before each test. Isolate tests however suits
   * the store: a new in-memory instance, a new schema, truncated tables...
   */
  createAdapter: () => Storage | Promise<Storage>;
  /** Tears one test's storage down. Default: `storage.close()`. */
  destroyAdapter?: (storage: Storage) => void | Promise<void>;
  /**
   * How many transactions the concurrency tests run at once (N parallel debits, parallel
   * claims...). Default 24; more than a pool's connections is fine, they queue.
   */
  parallelism?: number;
}

/**
 * Runs the whole contract of the `Storage` interface as vitest tests: every method's documented
 * behaviour, not-found answers, isolation by merchant and mode, list orders and cursors, reads
 * that see every committed write (a cache must never answer from before a commit), atomic
 * transactions and row locks, and the concurrency guarantees the service relies on
 * (parallel debits never overdraw, a deposit reported twice is credited once, two delivery
 * workers never claim the same delivery nor together lease more of one endpoint's than allowed,
 * one idempotency key is claimed once, a counter kept under `lockCursor` loses no update).
 * It is organised as the port is: one `describe` per part (MerchantStore, InvoiceStore,
 * LedgerStore, WebhookOutboxStore...), then `transaction` over all of them, so that a failure
 * names the part to fix.
 *
 * Call it at the top level of a test file, once per adapter:
 *
 * ```ts
 * import { runStorageAdapterTests } from "express-crypto-pay/testing";
 * runStorageAdapterTests({ name: "myStorage", createAdapter: () => myStorage(...) });
 * ```
 */
export function runStorageAdapterTests(options: StorageAdapterTestOptions): void {
  let current: Storage | null = null;
  const context: SuiteContext = {
    storage: () => {
      if (!current) throw new Error("runStorageAdapterTests: no storage; createAdapter has not run for this test");
      return current;
    },
    parallelism: options.parallelism ?? 24,
  };

  describe(`${options.name ?? "storage adapter"} conforms to the Storage contract`, () => {
    beforeEach(async () => {
      current = await options.createAdapter();
    });
    afterEach(async () => {
      const storage = current;
      current = null;
      if (storage) await (options.destroyAdapter ? options.destroyAdapter(storage) : storage.close());
    });

    // One describe per part of the Storage port, in the order of its files, then the
    // transaction over all of them.
    merchantTests(context);
    invoiceTests(context);
    addressTests(context);
    depositTests(context);
    ledgerTests(context);
    payoutTests(context);
    exchangeTests(context);
    paymentLinkTests(context);
    webhookEndpointTests(context);
    webhookOutboxTests(context);
    webhookBacklogTests(context);
    idempotencyTests(context);
    cursorTests(context);
    unlistedTransferTests(context);
    operatorListTests(context);
    reconcileTests(context);
    exportTests(context);
    auditLogTests(context);
    allowlistTests(context);
    subscriptionTests(context);
    transactionTests(context);
  });
}
