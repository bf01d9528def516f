import express from "express";
import request from "supertest";
import { afterAll, expect, it } from "vitest";
import { createPaymentRouter } from "../../../src/index";
import { storageBackends } from "../../adapters/storage/sql-fixtures";
import { setup, type Harness } from "../../helpers";
import { describeIf, NO_DATABASE_URL } from "../../support/skips";
import { available, claimCsrf, createClaim, eventTypesOf, PAYER_ADDRESS, pathOf } from "./refund-claim-support";
import { paidPayment } from "./support";

/**
 * A claim link submitted at once through two instances of the service sharing one PostgreSQL
 * database (each with its own pool, as two processes): the refund's row lock and the state check
 * in the claim's transaction let exactly one claim through; every other submission sees it
 * claimed (409 page), and the balance is debited once.
 */
const server = storageBackends("claims").find((backend) => backend.name === "PostgreSQL server")!;

describeIf(server.enabled, NO_DATABASE_URL)("refund claim links on a PostgreSQL server with two router instances", () => {
  let dispose: (() => Promise<void>) | undefined;
  let h: Harness | undefined;
  let closeSecond: (() => Promise<void>) | undefined;

  afterAll(async () => {
    await closeSecond?.();
    await h?.router.close();
    await dispose?.();
  });

  it("claims each link exactly once when both instances take the confirm step at the same time", async () => {
    const opened = await server.open();
    dispose = opened.dispose;
    h = await setup({ storage: opened.storage });
    const second = createPaymentRouter({
      storage: opened.second(),
      backgroundIntervalMs: false,
      now: h.clock.now,
      logger: h.logger,
      webhooks: { intervalMs: false, allowPrivateUrls: true },
    });
    closeSecond = () => second.close();
    const apps = [h.app, express().use(second)];
    await paidPayment(h, "400");
    const payment = await paidPayment(h, "100");
    expect(await available(h)).toBe("497.5");
    for (let round = 0; round < 5; round++) {
      const claim = await createClaim(h, { paymentId: payment.id, amount: "10" });
      // The CSRF token is keyed by the link's stored secret hash: the page of either instance makes one both accept.
      const form = { step: "confirm", network: "TRX", address: PAYER_ADDRESS, amount: "10", csrf: await claimCsrf(h, claim.claimUrl) };
      const answers = await Promise.all(
        [0, 1, 0, 1].map((n) => request(apps[n]!).post(pathOf(claim.claimUrl)).set("Sec-Fetch-Site", "same-origin").type("form").send(form)),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([303, 409, 409, 409]);
      expect(await eventTypesOf(h, claim.id)).toEqual(["refund.created", "refund.claimed", "refund.processing"]);
    }
    expect(await available(h)).toBe("437.5"); // 497.5 - 5 x (10 + 2), each once
    const refunds = await h.router.storage.listRefunds(payment.id);
    expect(refunds.map((refund) => [refund.status, refund.address, refund.amount])).toEqual(Array(5).fill(["PROCESSING", PAYER_ADDRESS, 10_000_000n]));
  });
});
