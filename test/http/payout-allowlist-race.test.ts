import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { PaymentError } from "../../src/index";
import { postgresStorage } from "../../src/postgres";
import { DATABASE_URL, dropSchema, uniqueSchema } from "../adapters/storage/sql-fixtures";
import { type Harness, setup } from "../helpers";
import { describeIf, NO_DATABASE_URL } from "../support/skips";

/**
 * Proposals of one payout address racing on a PostgreSQL server: the storage's unique key lets
 * one in, and every other proposal answers 409 naming the entry that won, never a 500.
 */
describeIf(DATABASE_URL, NO_DATABASE_URL)("payout allowlist proposals racing on a PostgreSQL server", () => {
  const schema = uniqueSchema("allowrace");
  let pool: pg.Pool;
  let h: Harness;

  afterAll(async () => {
    await h?.router.close();
    await pool?.end();
    await dropSchema(schema);
  });

  it("stores one of several simultaneous proposals of an address and refuses the others with 409", async () => {
    pool = new pg.Pool({ connectionString: DATABASE_URL, max: 8 });
    h = await setup({ storage: postgresStorage({ pool, schema }) });
    const address = "TCUmA2JEPuSiBFmNGRiVktBZKbLB89JnSq";
    for (let round = 0; round < 5; round++) {
      const network = "TRX";
      const outcomes = await Promise.allSettled(
        Array.from({ length: 4 }, (_, n) =>
          h.router.admin.addAllowedAddress({ merchantId: h.merchant.id, mode: round % 2 ? "live" : "test", network, address, by: `user${n}@shop.example` }),
        ),
      );
      const stored = outcomes.filter((outcome) => outcome.status === "fulfilled");
      expect(stored).toHaveLength(1);
      const id = (stored[0] as PromiseFulfilledResult<{ id: string }>).value.id;
      for (const outcome of outcomes.filter((each) => each.status === "rejected")) {
        const error = (outcome as PromiseRejectedResult).reason;
        expect(error).toBeInstanceOf(PaymentError);
        expect((error as PaymentError).status).toBe(409);
        expect((error as PaymentError).message).toContain(id);
      }
      await h.router.admin.removeAllowedAddress(id, { by: "admin@shop.example" });
    }
  });
});
