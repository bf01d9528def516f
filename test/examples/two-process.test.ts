import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import pg from "pg";
import { afterAll, afterEach, expect, it } from "vitest";
import { DATABASE_URL, uniqueSchema } from "../adapters/storage/sql-fixtures";
import { eventually, startExample, type ExampleProcess } from "./example-process";
import { describeIf, NO_DATABASE_URL } from "../support/skips";

const KEY = "sk_test_TwoProcessTestKeyForTheExample01";
const DESTINATION = "TCUmA2JEPuSiBFmNGRiVktBZKbLB89JnSq";
const running: ExampleProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop("SIGKILL")));
});

/** USDT amounts as micro-units: the API answers decimal strings or JSON numbers. */
const micros = (value: string | number): bigint => {
  const [whole, fraction = ""] = String(value).split(".");
  return BigInt(whole!) * 1_000_000n + BigInt(fraction.padEnd(6, "0").slice(0, 6));
};

/** A webhook receiver that holds requests while `hold` is on, then answers 200; it logs each webhook-id. */
async function receiver() {
  const seen: string[] = [];
  const held: ServerResponse[] = [];
  let hold = true;
  const server: Server = createServer((req: IncomingMessage, res) => {
    req.resume();
    req.on("end", () => {
      seen.push(String(req.headers["webhook-id"]));
      if (hold) held.push(res);
      else res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  return {
    url: `http://127.0.0.1:${address.port}/hooks`,
    seen,
    held: () => held.length,
    release() {
      hold = false;
      for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(200).end();
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describeIf(DATABASE_URL, NO_DATABASE_URL)("two example server processes on one PostgreSQL database", { timeout: 180_000 }, () => {
  const schema = uniqueSchema("two");
  const env = (extra: Record<string, string>) => ({ DATABASE_URL: DATABASE_URL!, PG_SCHEMA: schema, DEMO_MERCHANT_ID: "mch_two", ...extra });

  afterAll(async () => {
    const pool = new pg.Pool({ connectionString: DATABASE_URL });
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  it("credits deposits sent to either once, never overdraws with payouts split across both, and survives a kill -9", async () => {
    // Phase 1, background loops parked: what happens is what the requests do, so counts are exact.
    // Both start at once on an empty schema: the migrations and the demo merchant race.
    const quiet = env({ BACKGROUND_INTERVAL_MS: "3600000" });
    const [a, b] = await Promise.all([startExample(quiet, KEY), startExample(quiet, KEY)]);
    running.push(a!, b!);
    const both = [a!, b!];

    // Six paid invoices, each deposit sent to one process or the other.
    let credited = 0n;
    const invoices: string[] = [];
    for (let i = 0; i < 6; i++) {
      const created = await both[i % 2]!.call<{ id: string; address: string; payAmount: number }>("/api/v1/merchants/whitelabel/create", {
        amount: 100,
        payCurrency: "USDT",
        network: "TRX",
      });
      expect(created.status).toBe(200);
      invoices.push(created.body.id);
      const sent = await both[(i + 1) % 2]!.call("/api/v1/sandbox/deposit/create", {
        address: created.body.address,
        amount: created.body.payAmount,
        confirmations: 19,
      });
      expect(sent.status).toBe(200);
      const units = micros(created.body.payAmount);
      credited += units - (units * 5n) / 1000n; // less the 0.5% fee, rounded down
    }
    const balance = async (server: ExampleProcess) =>
      micros(
        (await server.call<{ data: Array<{ currency: string; available: string }> }>("/v1/balances")).body.data.find((row) => row.currency === "USDT")!
          .available,
      );
    expect(await balance(a!)).toBe(credited);
    expect(await balance(b!)).toBe(credited);
    for (const id of invoices) expect((await b!.call<{ status: string }>("/api/v1/merchants/invoice/fetch", { invoiceId: id })).body.status).toBe("PAID");

    // Thirty payouts of 48 USDT (+2 fees) at once, split across both: the balance covers k.
    const debit = 50_000_000n;
    const k = Number(credited / debit);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        both[i % 2]!.call("/api/v1/merchants/payout/create", { currency: "USDT", network: "TRX", amount: 48, address: DESTINATION }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(k);
    expect(answers.filter((answer) => answer.status === 422)).toHaveLength(30 - k);
    expect(await balance(a!)).toBe(credited - BigInt(k) * debit);
    await Promise.all(both.map((server) => server.stop("SIGTERM")));

    // Phase 2, every loop running on both: deposit sync, expiry, payouts, webhook delivery.
    const hooks = await receiver();
    try {
      const busy = env({ BACKGROUND_INTERVAL_MS: "200", WEBHOOK_TIMEOUT_MS: "1000", WEBHOOK_RETRY_SCHEDULE: "100,100,100" });
      const [c, d] = await Promise.all([startExample(busy, KEY), startExample(busy, KEY)]);
      running.push(c!, d!);
      // The payment events only: the payouts' own events (payout.*) would make the count depend
      // on how many of phase 1's payouts settle here.
      const events = ["payment.created", "payment.confirming", "payment.confirmed", "payment.completed"];
      for (let e = 0; e < 4; e++) expect((await c!.call("/v1/webhook-endpoints", { url: `${hooks.url}/${e}`, events })).status).toBe(200);
      // Events for the four endpoints: the receiver holds every request, so deliveries stay in flight.
      const more: string[] = [];
      for (let i = 0; i < 4; i++) {
        const created = await [c!, d!][i % 2]!.call<{ id: string; address: string; payAmount: number }>("/api/v1/merchants/whitelabel/create", {
          amount: 20,
          payCurrency: "USDT",
          network: "TRX",
        });
        more.push(created.body.id);
        await [d!, c!][i % 2]!.call("/api/v1/sandbox/deposit/create", { address: created.body.address, amount: created.body.payAmount, confirmations: 19 });
        const units = micros(created.body.payAmount);
        credited += units - (units * 5n) / 1000n;
      }
      await c!.call("/api/v1/merchants/payout/create", { currency: "USDT", network: "TRX", amount: 10, address: DESTINATION });
      await eventually(async () => (hooks.held() >= 4 ? true : undefined), 20_000, "deliveries in flight");

      // One process dies mid-work; the other must finish everything, including what the dead one held.
      await c!.stop("SIGKILL");
      hooks.release();

      const deliveries = async () =>
        (await d!.call<{ data: Array<{ id: string; status: string }>; hasMore: boolean }>("/v1/webhook-deliveries?limit=100")).body.data;
      const settled = await eventually(
        async () => {
          const list = await deliveries();
          return list.length > 0 && list.every((delivery) => delivery.status === "succeeded") ? list : undefined;
        },
        90_000,
        "every webhook delivery to succeed",
      );
      // 4 endpoints x (created, confirming, confirmed, completed) for each of the 4 invoices.
      expect(settled).toHaveLength(4 * 4 * 4);
      for (const delivery of settled) expect(hooks.seen).toContain(delivery.id);

      const payouts = await eventually(
        async () => {
          const list = (await d!.call<{ data: Array<{ status: string; amount: string; fee: string }> }>("/v1/withdrawals?limit=100")).body.data;
          return list.every((payout) => payout.status !== "PROCESSING") ? list : undefined;
        },
        30_000,
        "every payout to settle",
      );
      expect(payouts).toHaveLength(k + 1);
      for (const id of [...invoices, ...more])
        expect((await d!.call<{ status: string }>("/api/v1/merchants/invoice/fetch", { invoiceId: id })).body.status).toBe("PAID");
      // The money adds up: every credit once, every completed payout's debit once, failed ones returned.
      const spent = payouts.filter((payout) => payout.status === "COMPLETED").reduce((sum, payout) => sum + micros(payout.amount) + micros(payout.fee), 0n);
      expect(await balance(d!)).toBe(credited - spent);
    } finally {
      hooks.release();
      await hooks.close();
    }
  });
});
