import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { PaymentError, staticPricing, type PricingAdapter } from "../../src/index";
import { postgresStorage } from "../../src/postgres";
import { DATABASE_URL, dropSchema, uniqueSchema } from "../adapters/storage/sql-fixtures";
import { setup } from "../helpers";
import { describeIf, NO_DATABASE_URL } from "../support/skips";

/**
 * `close()` under load on a PostgreSQL server: 50 concurrent payment requests, half of them in
 * flight when it is called (held in the price lookup until the test lets them go), half sent
 * after, and five more in flight whose clients went away before it. Every answer is a 2xx whose payment is stored, or a 503 (50321) whose payment is not,
 * counted in SQL after the router closed; none is a 500 of a closed storage or pool.
 */
describeIf(DATABASE_URL, NO_DATABASE_URL)("close() with requests in flight on a PostgreSQL server", () => {
  const schema = uniqueSchema("cleanstop");
  let server: Server | undefined;

  afterAll(async () => {
    server?.closeAllConnections();
    server?.close();
    await dropSchema(schema);
  });

  it("lets requests in flight finish (each 2xx stored) and answers new ones 503 with nothing stored, no 500", async () => {
    // Prices answer once the test says so: requests that reached the lookup stay in flight until then.
    const prices = staticPricing();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The five whose clients go away are held longer: once the others answered, they alone are in flight.
    let releaseAbandoned!: () => void;
    const heldLonger = new Promise<void>((resolve) => (releaseAbandoned = resolve));
    let asked = 0;
    const pricing: PricingAdapter = {
      getRate: async (base, quote) => {
        asked++;
        await (asked > 25 ? heldLonger : held);
        return prices.getRate(base, quote);
      },
    };
    const h = await setup({ storage: postgresStorage({ connectionString: DATABASE_URL!, schema }), pricing, publicUrl: "https://shop.example" });
    server = h.app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server!.once("listening", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const post = (orderId: string, signal?: AbortSignal) =>
      fetch(`${base}/v1/payments`, {
        method: "POST",
        headers: { Authorization: `Bearer ${h.testKey}`, "Content-Type": "application/json" },
        body: JSON.stringify({ amount: "10", amountCurrency: "USD", currency: "USDT", chain: "TRX", metadata: { orderId } }),
        ...(signal ? { signal } : {}),
      });
    const create = (n: number) => post(`order-${n}`).then(async (res) => ({ n, status: res.status, body: (await res.json()) as Record<string, unknown> }));

    const early = Array.from({ length: 25 }, (_, n) => create(n));
    for (let i = 0; i < 2000 && asked < 25; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    // Five more whose clients give up while they are in flight: their handlers go on, and close() waits for them too.
    const impatient = new AbortController();
    const abandoned = Array.from({ length: 5 }, (_, n) => post(`abandoned-${n}`, impatient.signal).catch(() => "aborted"));
    for (let i = 0; i < 2000 && asked < 30; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(asked).toBe(30); // every early request is in flight, waiting for its price
    impatient.abort();
    expect(await Promise.all(abandoned)).toEqual(Array(5).fill("aborted"));

    const closed = h.router.close();
    const late = await Promise.all(Array.from({ length: 25 }, (_, n) => create(25 + n)));
    const inProcess = await h.router
      .forMerchant(h.merchant.id, "test")
      .payments.create({ amount: "10", amountCurrency: "USD", currency: "USDT", chain: "TRX", metadata: { orderId: "in-process" } })
      .catch((error: unknown) => error);
    release();
    const answers = [...(await Promise.all(early)), ...late];
    // Every answered request is done; the abandoned ones are still at work, and close() waits for them.
    await new Promise((resolve) => setTimeout(resolve, 200));
    releaseAbandoned();
    await closed;

    for (const answer of late) expect(answer, JSON.stringify(answer)).toMatchObject({ status: 503, body: { error: 50321 } });
    expect(inProcess).toBeInstanceOf(PaymentError);
    expect(inProcess).toMatchObject({ status: 503, code: 50321 });
    for (const answer of answers) {
      expect([200, 503], JSON.stringify(answer)).toContain(answer.status);
      if (answer.status === 503) expect(Object.keys(answer.body).sort()).toEqual(["error", "message"]);
    }
    const succeeded = answers.filter((answer) => answer.status === 200);
    expect(succeeded.map((answer) => answer.n).sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, n) => n));

    // Counted in SQL after the close: exactly the payments answered 2xx, each once, and those
    // whose clients went away (their work finished before the storage closed).
    const pool = new pg.Pool({ connectionString: DATABASE_URL });
    try {
      const { rows } = await pool.query<{ id: string; order_id: string }>(`SELECT id, metadata->>'orderId' AS order_id FROM "${schema}".invoices ORDER BY id`);
      const answered = rows.filter((row) => !row.order_id.startsWith("abandoned-"));
      expect(answered.map((row) => row.id).sort()).toEqual(succeeded.map((answer) => answer.body.id as string).sort());
      expect(
        rows
          .filter((row) => row.order_id.startsWith("abandoned-"))
          .map((row) => row.order_id)
          .sort(),
      ).toEqual(Array.from({ length: 5 }, (_, n) => `abandoned-${n}`));
      expect(new Set(rows.map((row) => row.order_id)).size).toBe(rows.length);
    } finally {
      await pool.end();
    }
    // Read back through a fresh storage, as the next start would.
    const fresh = postgresStorage({ connectionString: DATABASE_URL!, schema });
    try {
      for (const answer of succeeded) {
        const stored = await fresh.getInvoice({ merchantId: h.merchant.id, mode: "test" }, answer.body.id as string);
        expect(stored?.metadata).toEqual({ orderId: `order-${answer.n}` });
      }
    } finally {
      await fresh.close();
    }
    expect(h.logger.lines.filter((line) => line.startsWith("error"))).toEqual([]);
  }, 60_000);
});
