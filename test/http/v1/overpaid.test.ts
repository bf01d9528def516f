import { describe, expect, it } from "vitest";
import type { ServiceEvent } from "../../../src/index";
import { setup } from "../../helpers";
import { createPayment, deposit, get, scopeOf } from "./support";

/**
 * An overpaid payment says so wherever it is read: the amount received beside the amount due,
 * and what went beyond it, in the /v1 payment, the merchant API's invoice and its events.
 */
describe("an overpaid payment", () => {
  it("shows receivedAmount, payAmount and overpaidAmount on both APIs and in payment.completed", async () => {
    const completed: Array<ServiceEvent<"payment.completed">> = [];
    const h = await setup({ on: { "payment.completed": (event) => void completed.push(event) } });
    const payment = await createPayment(h, { amount: "100", currency: "USDT", chain: "TRX", metadata: { orderId: "o-7" } });
    expect(payment).toMatchObject({ payAmount: "100", receivedAmount: "0", overpaidAmount: "0" });

    await deposit(h, payment.address!, "130.25", 1);
    // Seen, not final yet: already more than asked for.
    expect((await get(h, `/v1/payments/${payment.id}`)).body).toMatchObject({ status: "CONFIRMING", receivedAmount: "130.25", overpaidAmount: "30.25" });
    const txHash = (await get(h, `/v1/payments/${payment.id}`)).body.txHash as string;
    await h.post("/api/v1/sandbox/deposit/confirm", { txHash, confirmations: 19 });

    const v1 = (await get(h, `/v1/payments/${payment.id}`)).body;
    expect(v1).toMatchObject({ status: "PAID", payAmount: "100", receivedAmount: "130.25", overpaidAmount: "30.25" });
    const invoice = await h.post("/api/v1/merchants/invoice/fetch", { invoiceId: payment.id });
    expect(invoice.status, invoice.text).toBe(200);
    expect(invoice.body).toMatchObject({ status: "PAID", payAmount: 100, receivedAmount: 130.25, overpaidAmount: 30.25 });

    await h.router.tick();
    expect(completed).toHaveLength(1);
    expect(completed[0]!.data).toMatchObject({
      status: "PAID",
      payAmount: "100",
      receivedAmount: "130.25",
      overpaidAmount: "30.25",
      metadata: { orderId: "o-7" },
    });
    const recorded = (await h.router.storage.listEvents(scopeOf(h), { invoiceId: payment.id })).find((event) => event.type === "payment.completed")!;
    expect(recorded.data).toEqual(v1);
  });

  it("shows overpaidAmount 0 for a payment paid exactly, one paid short, and a hosted one without a coin", async () => {
    const h = await setup();
    const exact = await createPayment(h, { amount: "10", currency: "USDT", chain: "TRX" });
    await deposit(h, exact.address!, exact.payAmount!, 19);
    const short = await createPayment(h, { amount: "10", currency: "USDT", chain: "TRX" });
    await deposit(h, short.address!, "4", 19);
    const hosted = await createPayment(h, { amount: "10", currency: "USDT" }); // on several networks: the payer picks one
    for (const [id, received] of [
      [exact.id, "10"],
      [short.id, "4"],
      [hosted.id, "0"],
    ] as const) {
      expect((await get(h, `/v1/payments/${id}`)).body).toMatchObject({ receivedAmount: received, overpaidAmount: "0" });
      expect((await h.post("/api/v1/merchants/invoice/fetch", { invoiceId: id })).body.overpaidAmount).toBe(0);
    }
  });
});
