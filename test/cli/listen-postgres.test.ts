import express from "express";
import pg from "pg";
import { afterEach, expect, it } from "vitest";
import type { Storage } from "../../src/index";
import { postgresStorage } from "../../src/postgres";
import { DATABASE_URL, uniqueSchema } from "../adapters/storage/sql-fixtures";
import { heldTransaction } from "../support/held-transaction";
import { describeIf, NO_DATABASE_URL } from "../support/skips";
import { listen, startCli, startService } from "./service";

/**
 * `listen` against a service on a PostgreSQL server, where another instance's transaction wrote
 * its event first and commits last: listen, which has polled on past the later event meanwhile,
 * still forwards the earlier one, and each event once.
 */

const opened: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close();
});

/** `storage` with a count of its event log reads: how many polls the service answered. */
function countingReads(storage: Storage): { storage: Storage; reads: () => number } {
  let reads = 0;
  const counted = new Proxy(storage, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property === "readEventLog")
        return (...args: Parameters<Storage["readEventLog"]>) => {
          reads++;
          return target.readEventLog(...args);
        };
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { storage: counted, reads: () => reads };
}

/** Resolves once `condition` holds; rejects after `ms`. */
async function until(condition: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describeIf(DATABASE_URL, NO_DATABASE_URL)("listen on a PostgreSQL server", () => {
  it("forwards an event whose transaction wrote first and committed after a later one listen had polled past, each event once", async () => {
    const schema = uniqueSchema("listen");
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 6 });
    opened.push(async () => {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    });
    const { storage, reads } = countingReads(postgresStorage({ pool, schema }));
    const service = await startService({ storage });
    opened.push(() => service.close());
    const other = postgresStorage({ pool, schema });
    opened.push(() => other.close());

    const received: string[] = [];
    const app = express();
    app.post("/hooks", express.raw({ type: "*/*" }), (req, res) => {
      received.push(String(req.headers["webhook-id"]));
      res.sendStatus(204);
    });
    const receiver = await listen(app);
    opened.push(async () => {
      receiver.server.closeAllConnections();
      await new Promise((resolve) => receiver.server.close(resolve));
    });
    const env = { EXPRESS_CRYPTO_PAY_URL: service.url, EXPRESS_CRYPTO_PAY_API_KEY: service.testKey };
    const running = startCli(["listen", "--forward-to", `${receiver.base}/hooks`, "--interval", "100", "--json"], env);
    opened.push(async () => {
      if (running.child.exitCode === null) running.child.kill("SIGKILL");
    });
    await running.line(/"ready":true/);

    // Another instance's unit of work records its event first and keeps its transaction open.
    const held = heldTransaction(other, (tx) =>
      tx.appendEvents([
        {
          id: "evt_other_instance",
          merchantId: service.merchantId,
          mode: "test",
          type: "payment.created",
          invoiceId: "inv_x",
          data: { id: "inv_x" },
          createdAt: Date.now(),
        },
      ]),
    );
    await held.worked;
    // This instance records payment.created after it and commits at once.
    const res = await fetch(`${service.url}/v1/payments`, {
      method: "POST",
      headers: { Authorization: `Bearer ${service.testKey}`, "Content-Type": "application/json" },
      body: JSON.stringify({ amount: "1", currency: "USDT", chain: "TRX" }),
    });
    expect(res.status).toBe(200);
    const paymentId = ((await res.json()) as { id: string }).id;
    const created = (await storage.listEvents({ merchantId: service.merchantId, mode: "test" }, { invoiceId: paymentId }))[0]!.id;

    // listen polls on past the committed event (twice, so a poll after its commit was answered).
    const polled = reads();
    await until(() => reads() >= polled + 2, 10_000, "two polls of listen");
    held.release();
    await held.done;

    await running.line(/"id":"evt_other_instance".*"status":204/, 20_000);
    await running.line(new RegExp(`"id":"${created}".*"status":204`), 20_000);
    running.child.kill("SIGINT");
    expect(await running.exited).toBe(0);
    expect(running.stdout()).toMatch(/"forwarded": ?2\b/);
    expect(received).toEqual(["evt_other_instance", created]);
  });
});
