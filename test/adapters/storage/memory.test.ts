import { describe, expect, it } from "vitest";
import { memoryStorage } from "../../../src/adapters/storage/memory";
import type { Scope, Storage } from "../../../src/adapters/storage/types";
import type {
  AddressRecord,
  ApiKeyRecord,
  DepositRecord,
  EventRecord,
  ExchangeRecord,
  InvoiceRecord,
  LedgerEntry,
  MerchantRecord,
  PayoutRecord,
} from "../../../src/core/types";

const T0 = 1_700_000_000_000;
const TEST: Scope = { merchantId: "m_1", mode: "test" };

const merchant = (over: Partial<MerchantRecord> = {}): MerchantRecord => ({ id: "m_1", name: "Shop", settleCurrency: null, createdAt: T0, ...over });

const apiKey = (over: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  id: "key_1",
  merchantId: "m_1",
  mode: "test",
  hash: "hash_1",
  prefix: "sk_test_AbCd",
  createdAt: T0,
  revokedAt: null,
  ...over,
});

const invoice = (over: Partial<InvoiceRecord> = {}): InvoiceRecord => ({
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
  payAmount: 15_385n,
  feePaidByPayer: false,
  underPaidCoverTenths: 0,
  isWhiteLabel: true,
  returnUrl: null,
  paymentUrl: "https://shop.example/pay/inv_1",
  metadata: { orderId: "o_1", nested: { tags: ["a"] } },
  receivedAmount: 0n,
  txHash: null,
  late: false,
  failureReason: null,
  expiresAt: T0 + 3_600_000,
  createdAt: T0,
  updatedAt: T0,
  settleCurrency: null,
  paymentLinkId: null,
  ...over,
});

const address = (over: Partial<AddressRecord> = {}): AddressRecord => ({
  mode: "test",
  network: "bitcoin",
  address: "bc1qexample",
  coin: "BTC",
  merchantId: "m_1",
  invoiceId: "inv_1",
  createdAt: T0,
  ...over,
});

const deposit = (over: Partial<DepositRecord> = {}): DepositRecord => ({
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
  status: "PENDING",
  countsTowardInvoice: true,
  fee: 76n,
  creditedAt: null,
  seenAt: T0,
  updatedAt: T0,
  ...over,
});

const entry = (over: Partial<LedgerEntry> = {}): LedgerEntry => ({
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

const payout = (over: Partial<PayoutRecord> = {}): PayoutRecord => ({
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
  txHash: null,
  failureReason: null,
  createdAt: T0,
  updatedAt: T0,
  ...over,
});

const exchange = (over: Partial<ExchangeRecord> = {}): ExchangeRecord => ({
  id: "ex_1",
  merchantId: "m_1",
  mode: "test",
  status: "SUCCESS",
  fromCoin: "BTC",
  toCoin: "USDT",
  amount: 10n,
  rate: 65_000n,
  toAmount: 650_000n,
  createdAt: T0,
  invoiceId: null,
  ...over,
});

const event = (over: Partial<EventRecord> = {}): EventRecord => ({
  id: "evt_1",
  merchantId: "m_1",
  mode: "test",
  type: "payment.created",
  invoiceId: "inv_1",
  data: { id: "inv_1", metadata: { orderId: "o_1" } },
  createdAt: T0,
  ...over,
});

/** A promise with its resolve exposed, to hold a transaction open. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** Everything readable about TEST, to compare state before and after. */
async function snapshot(storage: Storage) {
  return {
    merchant: await storage.getMerchant("m_1"),
    keys: await storage.listApiKeys("m_1"),
    keyByHash: await storage.findApiKeyByHash("hash_2"),
    invoice: await storage.getInvoice(TEST, "inv_1"),
    invoice2: await storage.getInvoice(TEST, "inv_2"),
    address: await storage.findAddress("test", "bitcoin", "bc1qother"),
    deposits: await storage.listDepositsForInvoice("inv_1"),
    balances: await storage.listBalances(TEST),
    ledger: await storage.listLedgerEntries(TEST),
    events: await storage.listEvents(TEST),
    payout: await storage.getPayout(TEST, "po_1"),
    payout2: await storage.getPayout(TEST, "po_2"),
    exchange: await storage.getExchange(TEST, "ex_2"),
    cursor: await storage.getCursor("bitcoin"),
  };
}

async function seeded(): Promise<Storage> {
  const storage = memoryStorage();
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
  });
  return storage;
}

describe("memoryStorage: reads", () => {
  it("returns null, empty lists or 0n for anything never stored", async () => {
    const storage = memoryStorage();
    expect(await storage.getMerchant("m_x")).toBeNull();
    expect(await storage.findApiKeyByHash("nope")).toBeNull();
    expect(await storage.listApiKeys("m_x")).toEqual([]);
    expect(await storage.getInvoice(TEST, "inv_x")).toBeNull();
    expect(await storage.getPayout(TEST, "po_x")).toBeNull();
    expect(await storage.getExchange(TEST, "ex_x")).toBeNull();
    expect(await storage.findAddress("test", "bitcoin", "bc1qnone")).toBeNull();
    expect(await storage.listDepositsForInvoice("inv_x")).toEqual([]);
    expect(await storage.getBalance(TEST, "BTC")).toBe(0n);
    expect(await storage.listBalances(TEST)).toEqual([]);
    expect(await storage.listLedgerEntries(TEST)).toEqual([]);
    expect(await storage.listEvents(TEST)).toEqual([]);
    expect(await storage.listExpiringInvoices("test", T0 * 2, 10)).toEqual([]);
    expect(await storage.listPayoutsByStatus("test", "PROCESSING", 10)).toEqual([]);
    expect(await storage.getCursor("bitcoin")).toBeNull();
    await storage.transaction(async (tx) => {
      expect(await tx.lockInvoice("inv_x")).toBeNull();
      expect(await tx.lockPayout("po_x")).toBeNull();
      expect(await tx.lockDeposit("test", "bitcoin", "tx_x", 0)).toBeNull();
      expect(await tx.revokeApiKey("key_x", T0)).toBe(false);
    });
  });

  it("answers another merchant's invoice, payout and exchange as not found", async () => {
    const storage = await seeded();
    const other: Scope = { merchantId: "m_2", mode: "test" };
    expect(await storage.getInvoice(other, "inv_1")).toBeNull();
    expect(await storage.getPayout(other, "po_1")).toBeNull();
    expect(await storage.getExchange(other, "ex_1")).toBeNull();
    expect(await storage.getBalance(other, "BTC")).toBe(0n);
    expect(await storage.listBalances(other)).toEqual([]);
    expect(await storage.listLedgerEntries(other)).toEqual([]);
    expect(await storage.listEvents(other)).toEqual([]);
  });

  it("answers the other mode's records as not found", async () => {
    const storage = await seeded();
    const live: Scope = { merchantId: "m_1", mode: "live" };
    expect(await storage.getInvoice(live, "inv_1")).toBeNull();
    expect(await storage.getPayout(live, "po_1")).toBeNull();
    expect(await storage.getExchange(live, "ex_1")).toBeNull();
    expect(await storage.getBalance(live, "BTC")).toBe(0n);
    expect(await storage.listLedgerEntries(live)).toEqual([]);
    expect(await storage.listEvents(live)).toEqual([]);
    expect(await storage.findAddress("live", "bitcoin", "bc1qexample")).toBeNull();
    expect(await storage.listExpiringInvoices("live", T0 * 2, 10)).toEqual([]);
    expect(await storage.listPayoutsByStatus("live", "PROCESSING", 10)).toEqual([]);
    await storage.transaction(async (tx) => {
      expect(await tx.lockDeposit("live", "bitcoin", "tx_1", 0)).toBeNull();
    });
  });

  it("lets lock* reach a record whatever its merchant", async () => {
    const storage = await seeded();
    await storage.transaction(async (tx) => {
      expect((await tx.lockInvoice("inv_1"))?.merchantId).toBe("m_1");
      expect((await tx.lockPayout("po_1"))?.id).toBe("po_1");
      expect((await tx.lockDeposit("test", "bitcoin", "tx_1", 0))?.id).toBe("dep_1");
    });
  });

  it("returns records as they were stored, bigints and nested data included", async () => {
    const storage = await seeded();
    expect(await storage.getInvoice(TEST, "inv_1")).toEqual(invoice());
    expect(await storage.findAddress("test", "bitcoin", "bc1qexample")).toEqual(address());
    expect(await storage.listDepositsForInvoice("inv_1")).toEqual([deposit()]);
    expect(await storage.getExchange(TEST, "ex_1")).toEqual(exchange());
    expect(await storage.listEvents(TEST)).toEqual([event()]);
    expect(await storage.findApiKeyByHash("hash_1")).toEqual(apiKey());
  });
});

describe("memoryStorage: copies", () => {
  it("stores a copy, so mutating the record passed in changes nothing stored", async () => {
    const storage = memoryStorage();
    const inv = invoice();
    const evt = event();
    const dep = deposit();
    await storage.transaction(async (tx) => {
      await tx.insertInvoice(inv);
      await tx.appendEvents([evt]);
      await tx.insertDeposit(dep);
    });
    inv.status = "PAID";
    inv.acceptedCoins?.push("ETH");
    (inv.metadata?.nested as { tags: string[] }).tags.push("b");
    (evt.data.metadata as Record<string, unknown>).orderId = "changed";
    dep.amount = 0n;
    expect(await storage.getInvoice(TEST, "inv_1")).toEqual(invoice());
    expect(await storage.listEvents(TEST)).toEqual([event()]);
    expect(await storage.listDepositsForInvoice("inv_1")).toEqual([deposit()]);
  });

  it("returns a copy, so mutating a record read back changes nothing stored", async () => {
    const storage = await seeded();
    const read = await storage.getInvoice(TEST, "inv_1");
    read?.acceptedCoins?.push("ETH");
    (read?.metadata?.nested as { tags: string[] }).tags.push("b");
    const [expiring] = await storage.listExpiringInvoices("test", T0 * 2, 1);
    if (expiring) expiring.status = "EXPIRED";
    const [evt] = await storage.listEvents(TEST);
    if (evt) evt.data.id = "changed";
    const po = await storage.getPayout(TEST, "po_1");
    if (po) po.amount = 0n;
    await storage.transaction(async (tx) => {
      const locked = await tx.lockInvoice("inv_1");
      if (locked) locked.receivedAmount = 1n;
    });
    expect(await storage.getInvoice(TEST, "inv_1")).toEqual(invoice());
    expect(await storage.listEvents(TEST)).toEqual([event()]);
    expect(await storage.getPayout(TEST, "po_1")).toEqual(payout());
  });
});

describe("memoryStorage: unique constraints and updates", () => {
  const cases: Array<[string, (tx: Parameters<Parameters<Storage["transaction"]>[0]>[0]) => Promise<unknown>, RegExp]> = [
    ["merchant id", (tx) => tx.insertMerchant(merchant({ name: "Other" })), /merchant m_1 exists/],
    ["API key id", (tx) => tx.insertApiKey(apiKey({ hash: "hash_other" })), /API key key_1 exists/],
    ["API key hash", (tx) => tx.insertApiKey(apiKey({ id: "key_other" })), /hash exists/],
    ["invoice id", (tx) => tx.insertInvoice(invoice({ merchantId: "m_2" })), /invoice inv_1 exists/],
    ["(mode, network, address)", (tx) => tx.insertAddress(address({ invoiceId: "inv_2" })), /address bc1qexample on bitcoin \(test\) exists/],
    ["(mode, network, txHash, outputIndex)", (tx) => tx.insertDeposit(deposit({ id: "dep_other" })), /deposit tx_1:0 on bitcoin \(test\) exists/],
    ["payout id", (tx) => tx.insertPayout(payout({ amount: 1n })), /payout po_1 exists/],
    ["exchange id", (tx) => tx.insertExchange(exchange({ amount: 1n })), /exchange ex_1 exists/],
  ];

  it.each(cases)("refuses a second record with the same %s", async (_name, insert, message) => {
    const storage = await seeded();
    const before = await snapshot(storage);
    await expect(storage.transaction(insert)).rejects.toThrow(message);
    expect(await snapshot(storage)).toEqual(before);
  });

  it("accepts the same address or chain transfer on another network or in the other mode", async () => {
    const storage = await seeded();
    await storage.transaction(async (tx) => {
      await tx.insertAddress(address({ mode: "live" }));
      await tx.insertAddress(address({ network: "litecoin" }));
      await tx.insertDeposit(deposit({ id: "dep_2", mode: "live" }));
      await tx.insertDeposit(deposit({ id: "dep_3", outputIndex: 1 }));
    });
    expect((await storage.findAddress("live", "bitcoin", "bc1qexample"))?.mode).toBe("live");
    expect((await storage.listDepositsForInvoice("inv_1")).map((d) => d.id)).toEqual(["dep_1", "dep_2", "dep_3"]);
  });

  it("refuses to update a record that does not exist", async () => {
    const storage = memoryStorage();
    await expect(storage.transaction((tx) => tx.updateInvoice(invoice()))).rejects.toThrow(/invoice inv_1: no such record/);
    await expect(storage.transaction((tx) => tx.updateDeposit(deposit()))).rejects.toThrow(/deposit dep_1: no such record/);
    await expect(storage.transaction((tx) => tx.updatePayout(payout()))).rejects.toThrow(/payout po_1: no such record/);
  });

  it("replaces a record on update and keeps the indexes pointing at it", async () => {
    const storage = await seeded();
    await storage.transaction(async (tx) => {
      await tx.updateInvoice(invoice({ status: "CONFIRMING", updatedAt: T0 + 1 }));
      await tx.updateDeposit(deposit({ confirmations: 3, status: "CONFIRMED" }));
      await tx.updatePayout(payout({ status: "COMPLETED", txHash: "tx_out" }));
    });
    expect((await storage.getInvoice(TEST, "inv_1"))?.status).toBe("CONFIRMING");
    expect((await storage.listDepositsForInvoice("inv_1"))[0]?.confirmations).toBe(3);
    expect(await storage.listPayoutsByStatus("test", "COMPLETED", 10)).toEqual([payout({ status: "COMPLETED", txHash: "tx_out" })]);
    await storage.transaction(async (tx) => {
      expect((await tx.lockDeposit("test", "bitcoin", "tx_1", 0))?.status).toBe("CONFIRMED");
    });
  });
});

describe("memoryStorage: ordering", () => {
  it("lists keys oldest first, revoked ones included, and revokes a key only once", async () => {
    const storage = memoryStorage();
    await storage.transaction(async (tx) => {
      await tx.insertApiKey(apiKey({ id: "key_b", hash: "h_b", createdAt: T0 + 2 }));
      await tx.insertApiKey(apiKey({ id: "key_a", hash: "h_a", createdAt: T0 + 1 }));
      expect(await tx.revokeApiKey("key_a", T0 + 5)).toBe(true);
      expect(await tx.revokeApiKey("key_a", T0 + 6)).toBe(false);
    });
    expect((await storage.listApiKeys("m_1")).map((k) => [k.id, k.revokedAt])).toEqual([
      ["key_a", T0 + 5],
      ["key_b", null],
    ]);
    expect((await storage.findApiKeyByHash("h_a"))?.revokedAt).toBe(T0 + 5);
  });

  it("lists balances by asset symbol and ledger entries and events oldest first", async () => {
    const storage = memoryStorage();
    await storage.transaction(async (tx) => {
      await tx.postLedgerEntries([entry({ asset: "USDT", causeKey: "c1" }), entry({ asset: "BTC", causeKey: "c2" })]);
      await tx.postLedgerEntries([entry({ asset: "ETH", causeKey: "c3" })]);
      await tx.appendEvents([event({ id: "e1" }), event({ id: "e2", invoiceId: "inv_2" })]);
      await tx.appendEvents([event({ id: "e3" })]);
    });
    expect((await storage.listBalances(TEST)).map((b) => b.asset)).toEqual(["BTC", "ETH", "USDT"]);
    expect((await storage.listLedgerEntries(TEST)).map((e) => e.causeKey)).toEqual(["c1", "c2", "c3"]);
    expect((await storage.listLedgerEntries(TEST, "BTC")).map((e) => e.causeKey)).toEqual(["c2"]);
    expect((await storage.listEvents(TEST)).map((e) => e.id)).toEqual(["e1", "e2", "e3"]);
    expect((await storage.listEvents(TEST, { invoiceId: "inv_1" })).map((e) => e.id)).toEqual(["e1", "e3"]);
  });

  it("lists PENDING and UNDER_PAID invoices whose window has passed, earliest expiry first, at most limit", async () => {
    const storage = memoryStorage();
    await storage.transaction(async (tx) => {
      await tx.insertInvoice(invoice({ id: "late", expiresAt: T0 + 30 }));
      await tx.insertInvoice(invoice({ id: "early", status: "UNDER_PAID", expiresAt: T0 + 10 }));
      await tx.insertInvoice(invoice({ id: "middle", status: "CONFIRMING", expiresAt: T0 + 20 }));
      await tx.insertInvoice(invoice({ id: "future", expiresAt: T0 + 1000 }));
      await tx.insertInvoice(invoice({ id: "paid", status: "PAID", expiresAt: T0 }));
      await tx.insertInvoice(invoice({ id: "expired", status: "EXPIRED", expiresAt: T0 }));
      await tx.insertInvoice(invoice({ id: "live", mode: "live", expiresAt: T0 }));
    });
    const ids = async (limit: number) => (await storage.listExpiringInvoices("test", T0 + 30, limit)).map((i) => i.id);
    // CONFIRMING waits for its deposits, not the clock: it is never listed.
    expect(await ids(10)).toEqual(["early", "late"]);
    expect(await ids(1)).toEqual(["early"]);
    expect(await ids(0)).toEqual([]);
  });

  it("lists payouts of one status oldest first, at most limit", async () => {
    const storage = memoryStorage();
    await storage.transaction(async (tx) => {
      await tx.insertPayout(payout({ id: "p3", createdAt: T0 + 3 }));
      await tx.insertPayout(payout({ id: "p1", createdAt: T0 + 1 }));
      await tx.insertPayout(payout({ id: "p2", createdAt: T0 + 2 }));
      await tx.insertPayout(payout({ id: "done", status: "COMPLETED" }));
      await tx.insertPayout(payout({ id: "live", mode: "live" }));
    });
    expect((await storage.listPayoutsByStatus("test", "PROCESSING", 10)).map((p) => p.id)).toEqual(["p1", "p2", "p3"]);
    expect((await storage.listPayoutsByStatus("test", "PROCESSING", 2)).map((p) => p.id)).toEqual(["p1", "p2"]);
  });

  it("lists deposits of an invoice in the order they were first seen", async () => {
    const storage = memoryStorage();
    await storage.transaction(async (tx) => {
      await tx.insertDeposit(deposit({ id: "d1", txHash: "a" }));
      await tx.insertDeposit(deposit({ id: "d2", txHash: "b" }));
      await tx.insertDeposit(deposit({ id: "other", txHash: "c", invoiceId: "inv_2" }));
      await tx.updateDeposit(deposit({ id: "d1", txHash: "a", confirmations: 6 }));
    });
    expect((await storage.listDepositsForInvoice("inv_1")).map((d) => d.id)).toEqual(["d1", "d2"]);
  });

  it("replaces a cursor when it is set again", async () => {
    const storage = memoryStorage();
    await storage.transaction((tx) => tx.setCursor("bitcoin", "1"));
    await storage.transaction((tx) => tx.setCursor("bitcoin", "2"));
    expect(await storage.getCursor("bitcoin")).toBe("2");
  });
});

describe("memoryStorage: transactions", () => {
  it("commits the writes and returns what the work returned", async () => {
    const storage = memoryStorage();
    const result = await storage.transaction(async (tx) => {
      await tx.insertMerchant(merchant());
      return "done";
    });
    expect(result).toBe("done");
    expect(await storage.getMerchant("m_1")).toEqual(merchant());
  });

  it("rolls back every write when the work throws", async () => {
    const storage = await seeded();
    const before = await snapshot(storage);
    const failure = new Error("boom");
    await expect(
      storage.transaction(async (tx) => {
        await tx.insertMerchant(merchant({ id: "m_2" }));
        await tx.insertApiKey(apiKey({ id: "key_2", hash: "hash_2" }));
        await tx.revokeApiKey("key_1", T0 + 1);
        await tx.insertInvoice(invoice({ id: "inv_2" }));
        await tx.updateInvoice(invoice({ status: "PAID", metadata: null }));
        await tx.insertAddress(address({ address: "bc1qother" }));
        await tx.insertDeposit(deposit({ id: "dep_2", txHash: "tx_2" }));
        await tx.updateDeposit(deposit({ confirmations: 9, invoiceId: "inv_2", txHash: "tx_moved" }));
        expect(await tx.postLedgerEntries([entry({ causeKey: "c_new", amount: 5n }), entry({ causeKey: "c_eth", asset: "ETH" })])).toEqual({ status: "posted" });
        await tx.insertPayout(payout({ id: "po_2" }));
        await tx.updatePayout(payout({ status: "FAILED" }));
        await tx.insertExchange(exchange({ id: "ex_2" }));
        await tx.appendEvents([event({ id: "evt_2" })]);
        await tx.setCursor("bitcoin", "200");
        throw failure;
      }),
    ).rejects.toBe(failure);

    expect(await snapshot(storage)).toEqual(before);
    expect(await storage.getMerchant("m_2")).toBeNull();
    expect(await storage.findApiKeyByHash("hash_1")).toEqual(apiKey());
    expect(await storage.listDepositsForInvoice("inv_2")).toEqual([]);
    expect(await storage.getBalance(TEST, "BTC")).toBe(100n);
    // Indexes and cause keys were released too: the same writes succeed now.
    await storage.transaction(async (tx) => {
      await tx.insertApiKey(apiKey({ id: "key_2", hash: "hash_2" }));
      await tx.insertDeposit(deposit({ id: "dep_2", txHash: "tx_2" }));
      expect(await tx.lockDeposit("test", "bitcoin", "tx_1", 0)).toEqual(deposit());
      expect(await tx.lockDeposit("test", "bitcoin", "tx_moved", 0)).toBeNull();
      expect(await tx.postLedgerEntries([entry({ causeKey: "c_new", amount: 5n })])).toEqual({ status: "posted" });
    });
    expect(await storage.getBalance(TEST, "BTC")).toBe(105n);
  });

  it("lets the work read its own uncommitted writes", async () => {
    const storage = await seeded();
    await storage.transaction(async (tx) => {
      await tx.updateInvoice(invoice({ status: "CONFIRMING" }));
      await tx.postLedgerEntries([entry({ causeKey: "c2", amount: 7n })]);
      expect((await tx.getInvoice(TEST, "inv_1"))?.status).toBe("CONFIRMING");
      expect(await tx.getBalance(TEST, "BTC")).toBe(107n);
    });
  });

  it("keeps a running transaction's writes from reads made outside it", async () => {
    const storage = await seeded();
    const hold = gate();
    const written = gate();
    const running = storage.transaction(async (tx) => {
      await tx.updateInvoice(invoice({ status: "PAID" }));
      written.open();
      await hold.promise;
    });
    await written.promise;
    let outside: InvoiceRecord | null | undefined;
    const read = storage.getInvoice(TEST, "inv_1").then((value) => (outside = value));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(outside).toBeUndefined(); // the read waits for the transaction to end
    hold.open();
    await running;
    await read;
    expect(outside?.status).toBe("PAID");
  });

  it("never shows a rolled-back write to a read that waited for the transaction", async () => {
    const storage = await seeded();
    const hold = gate();
    const written = gate();
    const running = storage.transaction(async (tx) => {
      await tx.updateInvoice(invoice({ status: "PAID" }));
      written.open();
      await hold.promise;
      throw new Error("abort");
    });
    await written.promise;
    const read = storage.getInvoice(TEST, "inv_1");
    hold.open();
    await expect(running).rejects.toThrow("abort");
    expect((await read)?.status).toBe("PENDING");
  });

  it("runs transactions one at a time, in the order they were started", async () => {
    const storage = memoryStorage();
    const log: string[] = [];
    const hold = gate();
    const first = storage.transaction(async () => {
      log.push("first:start");
      await hold.promise;
      log.push("first:end");
    });
    const second = storage.transaction(async () => void log.push("second"));
    const third = storage.transaction(async () => void log.push("third"));
    await new Promise((resolve) => setTimeout(resolve, 5));
    hold.open();
    await Promise.all([first, second, third]);
    expect(log).toEqual(["first:start", "first:end", "second", "third"]);
  });

  it("refuses a tx used after its transaction ended", async () => {
    const storage = memoryStorage();
    let leaked: Parameters<Parameters<Storage["transaction"]>[0]>[0] | undefined;
    await storage.transaction(async (tx) => void (leaked = tx));
    await expect(leaked?.insertMerchant(merchant())).rejects.toThrow(/after its transaction ended/);
    expect(await storage.getMerchant("m_1")).toBeNull();
  });

  it("keeps serving after a failed transaction", async () => {
    const storage = memoryStorage();
    await expect(storage.transaction(async () => Promise.reject(new Error("x")))).rejects.toThrow("x");
    await storage.transaction((tx) => tx.insertMerchant(merchant()));
    expect(await storage.getMerchant("m_1")).not.toBeNull();
    await expect(storage.close()).resolves.toBeUndefined();
  });
});

describe("memoryStorage: ledger", () => {
  it("posts entries and keeps one balance per merchant, mode and asset", async () => {
    const storage = memoryStorage();
    const result = await storage.transaction((tx) =>
      tx.postLedgerEntries([
        entry({ id: "a", causeKey: "a", amount: 100n, createdAt: T0 + 5 }),
        entry({ id: "b", causeKey: "b", amount: 50n, createdAt: T0 + 9 }),
        entry({ id: "c", causeKey: "c", amount: 70n, mode: "live" }),
        entry({ id: "d", causeKey: "d", amount: 30n, merchantId: "m_2" }),
      ]),
    );
    expect(result).toEqual({ status: "posted" });
    expect(await storage.listBalances(TEST)).toEqual([{ merchantId: "m_1", mode: "test", asset: "BTC", amount: 150n, updatedAt: T0 + 9 }]);
    expect(await storage.getBalance({ merchantId: "m_1", mode: "live" }, "BTC")).toBe(70n);
    expect(await storage.getBalance({ merchantId: "m_2", mode: "test" }, "BTC")).toBe(30n);
  });

  it("writes nothing when any cause was posted before", async () => {
    const storage = await seeded();
    const result = await storage.transaction((tx) =>
      tx.postLedgerEntries([entry({ id: "new", causeKey: "fresh", amount: 5n }), entry({ id: "again" })]),
    );
    expect(result).toEqual({ status: "duplicate" });
    expect(await storage.getBalance(TEST, "BTC")).toBe(100n);
    expect((await storage.listLedgerEntries(TEST)).map((e) => e.causeKey)).toEqual(["deposit:dep_1"]);
  });

  it("writes nothing when any balance would go below zero, and names that asset", async () => {
    const storage = await seeded();
    const result = await storage.transaction((tx) =>
      tx.postLedgerEntries([
        entry({ causeKey: "in", asset: "USDT", amount: 1000n }),
        entry({ causeKey: "out", asset: "BTC", amount: -101n, kind: "payout" }),
      ]),
    );
    expect(result).toEqual({ status: "insufficient", asset: "BTC" });
    expect(await storage.getBalance(TEST, "BTC")).toBe(100n);
    expect(await storage.getBalance(TEST, "USDT")).toBe(0n);
    expect(await storage.listBalances(TEST)).toHaveLength(1);
    expect(await storage.listLedgerEntries(TEST)).toHaveLength(1);
  });

  it("judges a batch by the balance it ends with, and allows reaching exactly zero", async () => {
    const storage = await seeded();
    const result = await storage.transaction((tx) =>
      tx.postLedgerEntries([
        entry({ causeKey: "out", amount: -150n, kind: "exchange_out" }),
        entry({ causeKey: "in", amount: 50n, kind: "exchange_in" }),
      ]),
    );
    expect(result).toEqual({ status: "posted" });
    expect(await storage.getBalance(TEST, "BTC")).toBe(0n);
  });

  it("refuses a batch that repeats a cause key", async () => {
    const storage = memoryStorage();
    await expect(storage.transaction((tx) => tx.postLedgerEntries([entry(), entry()]))).rejects.toThrow(/twice in one batch/);
    expect(await storage.listLedgerEntries(TEST)).toEqual([]);
  });

  it("never overdraws under concurrent debits: 50 debits of 10 against 200 post exactly 20", async () => {
    const storage = memoryStorage();
    await storage.transaction((tx) => tx.postLedgerEntries([entry({ causeKey: "funding", amount: 200n })]));
    const balances: bigint[] = [];
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        storage.transaction(async (tx) => {
          const available = await tx.getBalance(TEST, "BTC");
          await Promise.resolve(); // yield mid-transaction, as real work would
          const result = await tx.postLedgerEntries([entry({ id: `d${i}`, causeKey: `debit:${i}`, amount: -10n, kind: "payout" })]);
          balances.push(await tx.getBalance(TEST, "BTC"));
          expect(available).toBeGreaterThanOrEqual(0n);
          return result.status;
        }),
      ),
    );
    expect(results.filter((status) => status === "posted")).toHaveLength(20);
    expect(results.filter((status) => status === "insufficient")).toHaveLength(30);
    expect(balances.every((amount) => amount >= 0n)).toBe(true);
    expect(await storage.getBalance(TEST, "BTC")).toBe(0n);
    expect(await storage.listLedgerEntries(TEST)).toHaveLength(21);
  });
});
