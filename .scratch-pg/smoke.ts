import { postgresStorage } from "../src/adapters/storage/postgres/index";
for (const opts of [{ dataDir: "memory://" }, { connectionString: "postgres://postgres@127.0.0.1:5432/test", schema: "smoke_" + process.pid }]) {
  const t0 = Date.now();
  const st = postgresStorage(opts as never);
  await st.ready;
  console.log("ready", Date.now() - t0);
  await st.transaction(async (tx) => {
    await tx.insertMerchant({ id: "m_1", name: "Shop", settleCurrency: null, createdAt: 1 });
    await tx.postLedgerEntries([{ id: "l1", merchantId: "m_1", mode: "test", asset: "BTC", amount: 100n, kind: "deposit", causeKey: "c1", createdAt: 5 }]);
    console.log(await tx.postLedgerEntries([{ id: "l2", merchantId: "m_1", mode: "test", asset: "BTC", amount: -101n, kind: "payout", causeKey: "c2", createdAt: 5 }]));
    console.log(await tx.postLedgerEntries([{ id: "l3", merchantId: "m_1", mode: "test", asset: "BTC", amount: -1n, kind: "payout", causeKey: "c1", createdAt: 5 }, { id: "l4", merchantId: "m_1", mode: "test", asset: "ETH", amount: 5n, kind: "payout", causeKey: "c4", createdAt: 5 }]));
    await tx.appendEvents([{ id: "e1", merchantId: "m_1", mode: "test", type: "payment.created", invoiceId: "i", data: { b: 1, a: [1, 2] }, createdAt: 3 }, { id: "e2", merchantId: "m_1", mode: "test", type: "payment.created", invoiceId: "i", data: { x: 1 }, createdAt: 3 }]);
  });
  console.log(await st.getMerchant("m_1"), await st.listBalances({ merchantId: "m_1", mode: "test" }), await st.listEvents({ merchantId: "m_1", mode: "test" }));
  await st.transaction((tx) => tx.insertMerchant({ id: "m_1", name: "Shop", settleCurrency: null, createdAt: 1 })).catch((e) => console.log("expected:", e.message));
  console.log(await st.listInvoices({ merchantId: "m_1", mode: "test" }, { status: "PENDING" }, { limit: 10, after: "x" }));
  await st.close();
}
