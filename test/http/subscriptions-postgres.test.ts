import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { createPaymentRouter, type PaymentRouter } from "../../src/index";
import { postgresStorage } from "../../src/postgres";
import { DATABASE_URL, dropSchema, uniqueSchema } from "../adapters/storage/sql-fixtures";
import { type Harness, recordingLogger, setup } from "../helpers";
import { describeIf, NO_DATABASE_URL } from "../support/skips";
import { createSubscription, DAY, fetchSubscription, payPayment } from "./v1/subscription-support";

/**
 * Exactly one invoice per billing period with several instances on one PostgreSQL database:
 * two routers (each its own pool and storage, as two processes have) run the subscriptions'
 * schedule at the same moments, again and again; then one of them restarts and runs it again.
 * Each period gets one invoice, and no round fails.
 */
describeIf(DATABASE_URL, NO_DATABASE_URL)("subscriptions' invoices with two instances on one PostgreSQL server", () => {
  const schema = uniqueSchema("subsrace");
  const pools: pg.Pool[] = [];
  const routers: PaymentRouter[] = [];
  let h: Harness;

  afterAll(async () => {
    for (const router of routers) await router.close();
    await h?.router.close();
    for (const pool of pools) await pool.end();
    await dropSchema(schema);
  });

  /** Another instance on the same database and clock: its own pool, storage and background work. */
  const instance = (): PaymentRouter => {
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
    pools.push(pool);
    const router = createPaymentRouter({
      storage: postgresStorage({ pool, schema }),
      backgroundIntervalMs: false,
      now: h.clock.now,
      logger: recordingLogger(),
    });
    routers.push(router);
    return router;
  };

  it("makes one invoice per period however the instances' rounds interleave, and after a restart", async () => {
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 8 });
    pools.push(pool);
    h = await setup({ storage: postgresStorage({ pool, schema }) });
    const other = instance();
    const subscriptions = [];
    for (let n = 0; n < 6; n++)
      subscriptions.push(await createSubscription(h, { customer: `cus_${n}`, interval: { days: 2 }, renewBeforeDays: 1, gracePeriodDays: 1 }));

    for (let period = 1; period <= 3; period++) {
      for (const sub of subscriptions) await payPayment(h, (await fetchSubscription(h, sub.id)).openPaymentId!);
      // Up to the moment the next period's invoices are due, then both instances race on it.
      h.clock.advanceMinutes(DAY);
      await Promise.all([h.router.tick({ mode: "test" }), other.tick({ mode: "test" }), h.router.tick({ mode: "test" }), other.tick({ mode: "test" })]);
      h.clock.advanceMinutes(DAY);
      await Promise.all([h.router.tick({ mode: "test" }), other.tick({ mode: "test" })]);
      for (const sub of subscriptions)
        expect((await fetchSubscription(h, sub.id)).currentPeriodStart).toBe(
          new Date(Date.parse("2026-03-01T12:00:00.000Z") + period * 2 * DAY * 60_000).toISOString(),
        );
    }

    // A restart: the other instance goes away, a new one on the same database runs the schedule.
    await other.close();
    const restarted = instance();
    await Promise.all([h.router.tick({ mode: "test" }), restarted.tick({ mode: "test" })]);

    const invoices = await pool.query(
      `SELECT metadata ->> 'subscriptionId' AS subscription, metadata ->> 'subscriptionPeriod' AS period, count(*)::int AS n
       FROM "${schema}".invoices WHERE metadata ->> 'subscriptionId' IS NOT NULL GROUP BY 1, 2`,
    );
    // Periods 0 to 3 of each subscription, and one invoice each.
    expect(invoices.rows).toHaveLength(subscriptions.length * 4);
    for (const row of invoices.rows) expect(row.n).toBe(1);
    const periods = await pool.query(`SELECT subscription_id, count(*)::int AS n FROM "${schema}".subscription_periods GROUP BY 1`);
    for (const row of periods.rows) expect(row.n).toBe(4);
  });
});
