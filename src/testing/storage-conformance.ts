import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type CompleteStorage,
  hasStoragePart,
  OPTIONAL_STORAGE_PARTS,
  STORAGE_PARTS,
  type Storage,
  type StoragePart,
  storageParts,
} from "../core/ports/storage/index";
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
  /**
   * The optional parts of `Storage` the adapter implements (docs/storage.md, "Optional parts"):
   * their tests are registered, the others' are not (a storage without a part is not tested
   * for it, nor skipped). Default: every part. A test checks that the adapter has exactly these
   * parts, each whole, so a part left out here or implemented by half fails rather than going
   * untested.
   */
  parts?: readonly StoragePart[];
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
  const storage = () => {
    if (!current) throw new Error("runStorageAdapterTests: no storage; createAdapter has not run for this test");
    return current;
  };
  const parts = new Set<StoragePart>(options.parts ?? STORAGE_PARTS);
  const context: SuiteContext = {
    storage,
    // Used only by the tests of parts in `parts`, which the test below proves the storage has.
    full: () => storage() as CompleteStorage,
    parts,
    parallelism: options.parallelism ?? 24,
  };
  /** Registers the tests of an optional part when the adapter has it. */
  const ifPart = (part: StoragePart, register: (ctx: SuiteContext) => void) => {
    if (parts.has(part)) register(context);
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

    it("has exactly the optional parts it declares, each whole (reads on the storage, writes on its transactions)", async () => {
      const storage = context.storage();
      expect(storageParts(storage)).toEqual(STORAGE_PARTS.filter((part) => parts.has(part)));
      const partial = STORAGE_PARTS.filter((part) => {
        const { reads } = OPTIONAL_STORAGE_PARTS[part];
        const present = reads.filter((name) => typeof (storage as unknown as Record<string, unknown>)[name] === "function");
        return present.length > 0 && present.length < reads.length;
      });
      expect(partial).toEqual([]);
      const txParts = await storage.transaction(async (tx) => STORAGE_PARTS.filter((part) => hasStoragePart(tx, part, true)));
      expect(txParts).toEqual(STORAGE_PARTS.filter((part) => parts.has(part)));
    });

    // One describe per part of the Storage port, in the order of its files, then the
    // transaction over all of them. An optional part's tests only when the adapter has it.
    merchantTests(context);
    invoiceTests(context);
    addressTests(context);
    depositTests(context);
    ledgerTests(context);
    payoutTests(context);
    exchangeTests(context);
    ifPart("paymentLinks", paymentLinkTests);
    webhookEndpointTests(context);
    webhookOutboxTests(context);
    ifPart("webhookBacklog", webhookBacklogTests);
    idempotencyTests(context);
    cursorTests(context);
    ifPart("operatorReport", unlistedTransferTests);
    ifPart("operatorLists", operatorListTests);
    ifPart("reconcile", reconcileTests);
    ifPart("exports", exportTests);
    ifPart("auditLog", auditLogTests);
    allowlistTests(context);
    ifPart("subscriptions", subscriptionTests);
    transactionTests(context);
  });
}
