import { describe, expect, it } from "vitest";
import { PaymentError } from "../../src/index";
import { claimThroughPage, PAYER_ADDRESS, PAYER_EVM_ADDRESS } from "../http/v1/refund-claim-support";
import { deposit } from "../http/v1/support";
import { CARRIER_NAMES, CARRIERS, PUBLIC_URL } from "./carriers";

/** Refund claim links through the typed client and the in-process API: `refunds.create` without address, `retrieve`, `cancel`. */
describe.each(CARRIER_NAMES)("refund claim links through %s", (carrier) => {
  it("creates a link (claimUrl on publicUrl), shows it claimed with the payer's address, and cancels another", async () => {
    const { h, api, other } = await CARRIERS[carrier]();
    const payment = await api.payments.create({ amount: "100", currency: "USDT", chain: "TRX" });
    await deposit(h, payment.address!, payment.payAmount!, 19);
    const claim = await api.refunds.create({ paymentId: payment.id, amount: "30" });
    expect(claim).toMatchObject({ object: "refund", status: "AWAITING_CLAIM", amount: "30", fee: "2", address: "", claim: { held: "32", chains: ["TRX"] } });
    // The HTTP client's router is mounted under /shop: the link keeps the mount path.
    const mount = carrier === "the HTTP client" ? "/shop" : "";
    expect(claim.claimUrl!.startsWith(`${PUBLIC_URL}${mount}/pay/refund/${claim.id}/`)).toBe(true);
    expect(await api.refunds.retrieve(claim.id)).not.toHaveProperty("claimUrl");

    // The harness's own app serves the router at its root.
    await claimThroughPage(h, { ...claim, claimUrl: claim.claimUrl!.replace(`${PUBLIC_URL}${mount}`, PUBLIC_URL) }, "TRX", PAYER_ADDRESS);
    const claimed = await api.refunds.retrieve(claim.id);
    expect(claimed).toMatchObject({ status: "PROCESSING", address: PAYER_ADDRESS, chain: "TRX" });
    expect(claimed.claim?.claimedAt).toBe(new Date(h.clock.ms).toISOString());
    const late = await api.refunds.cancel(claim.id).catch((error: unknown) => error);
    expect(late).toBeInstanceOf(PaymentError);
    expect(late).toMatchObject({ status: 409, code: 40921 });

    const second = await api.refunds.create({ paymentId: payment.id, amount: "10" });
    const foreign = await other.refunds.cancel(second.id).catch((error: unknown) => error);
    expect(foreign).toMatchObject({ status: 404, code: 40401 });
    expect(await api.refunds.cancel(second.id)).toMatchObject({ id: second.id, status: "CANCELLED", claim: { claimedAt: null } });
    expect((await api.balances.retrieve()).data.find((row) => row.currency === "USDT")!.available).toBe("67.5"); // 99.5 - 32
  });

  it("offers another coin with claimCoins, shows it in the terms, and pays the claim in that coin", async () => {
    const { h, api } = await CARRIERS[carrier]();
    const payment = await api.payments.create({ amount: "100", currency: "USDT", chain: "TRX" });
    await deposit(h, payment.address!, payment.payAmount!, 19);
    const usdc = await api.payments.create({ amount: "100", currency: "USDC", chain: "BASE" });
    await deposit(h, usdc.address!, usdc.payAmount!, 19);
    const claim = await api.refunds.create({ paymentId: payment.id, amount: "30", claimCoins: { USDC: ["BASE"] } });
    expect(claim).toMatchObject({ status: "AWAITING_CLAIM", claim: { chains: ["TRX"], coins: { USDC: ["BASE"] }, held: "32", heldCurrency: "USDT" } });
    const mount = carrier === "the HTTP client" ? "/shop" : "";
    await claimThroughPage(h, { ...claim, claimUrl: claim.claimUrl!.replace(`${PUBLIC_URL}${mount}`, PUBLIC_URL) }, "BASE", PAYER_EVM_ADDRESS, "USDC");
    // Both coins at 1 USD in the default table: 30 USDC plus the BASE fee of 0.1.
    expect(await api.refunds.retrieve(claim.id)).toMatchObject({
      status: "PROCESSING",
      currency: "USDC",
      amount: "30",
      fee: "0.1",
      claim: { heldCurrency: "USDT" },
    });
    const balances = (await api.balances.retrieve()).data;
    expect(balances.find((row) => row.currency === "USDT")!.available).toBe("99.5");
    expect(balances.find((row) => row.currency === "USDC")!.available).toBe("69.4"); // 99.5 - 30.1
  });
});
