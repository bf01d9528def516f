import { describe, expect, it } from "vitest";
import { createPaymentRouter, PaymentError } from "../../src/index";
import { type Harness, setup } from "../helpers";
import { ADDRESS, balances, expectError, get, paidPayment } from "./v1/support";

/**
 * The payout allowlist: while a merchant's is on, withdrawals, /api/v1 payouts and refunds go
 * only to addresses an admin approved (not the one who proposed them) once their cooling-off
 * has passed; anything else is refused with 42204 and nothing is debited. Every change is in
 * the audit log.
 */

const HOUR = 60;
/** An EIP-55 checksummed address (mixed case) and the same address in lower case. */
const EVM_CHECKSUMMED = "0x52908400098527886E0F7030069857D2E4169EE7";
const EVM_LOWER = EVM_CHECKSUMMED.toLowerCase();
const BTC = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";

const withdraw = (h: Harness, address = ADDRESS, chain = "TRX", key?: string) =>
  h.post("/v1/withdrawals", { currency: "USDT", chain, amount: "10", address }, key);

/** The rejection of `promise`, as a PaymentError. */
async function refusal(promise: Promise<unknown>): Promise<PaymentError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PaymentError);
  return error as PaymentError;
}

/** Proposes `address` as alice and approves it as bob; returns its id. */
async function listed(h: Harness, address: string, network: string, mode: "test" | "live" = "test", merchantId = h.merchant.id): Promise<string> {
  const added = await h.router.admin.addAllowedAddress({ merchantId, mode, network, address, by: "user_alice" });
  await h.router.admin.approveAllowedAddress(added.id, { by: "user_bob" });
  return added.id;
}

describe("the payout allowlist", () => {
  it("is off by default; once on, refuses an address not on it (422, 42204) and debits nothing", async () => {
    const h = await setup();
    await paidPayment(h, "100"); // 99.5 USDT
    expect((await h.router.admin.getMerchant(h.merchant.id))?.payoutAllowlist).toBe(false);
    expect((await withdraw(h)).status).toBe(200);
    expect((await balances(h)).USDT!.available).toBe("87.5");

    const merchant = await h.router.admin.setAllowlist(h.merchant.id, { enabled: true, by: "user_alice" });
    expect(merchant.payoutAllowlist).toBe(true);
    const refused = await withdraw(h);
    expectError(refused, 422, 42204, new RegExp(`^${ADDRESS} is not on this merchant's payout allowlist for TRX \\(test mode\\)\\.$`));
    const payout = await h.post("/api/v1/merchants/payout/create", { currency: "USDT", network: "TRX", amount: 10, address: ADDRESS });
    expectError(payout, 422, 42204, /is not on this merchant's payout allowlist/);
    const payment = (await get(h, "/v1/payments?limit=1")).body.data[0] as { id: string };
    expectError(await h.post("/v1/refunds", { paymentId: payment.id, amount: "5", address: ADDRESS }), 422, 42204, /payout allowlist/);
    expect((await balances(h)).USDT!.available).toBe("87.5");
    expect((await get(h, "/v1/withdrawals")).body.data).toHaveLength(1);
    expect((await get(h, "/v1/refunds")).body.data).toHaveLength(0);

    await h.router.admin.setAllowlist(h.merchant.id, { enabled: false });
    expect((await withdraw(h)).status).toBe(200);
  });

  it("lets an address through only after another person approved it and the cooling-off passed", async () => {
    const h = await setup();
    await paidPayment(h, "100");
    await h.router.admin.setAllowlist(h.merchant.id, { enabled: true });
    const added = await h.router.admin.addAllowedAddress({
      merchantId: h.merchant.id,
      mode: "test",
      network: "TRX",
      address: ADDRESS,
      label: "Cold wallet",
      by: "user_alice",
    });
    expect(added).toMatchObject({
      network: "TRX",
      address: ADDRESS,
      label: "Cold wallet",
      proposedBy: "user_alice",
      approvedBy: null,
      usableAt: null,
      state: "awaiting_approval",
    });
    expectError(await withdraw(h), 422, 42204, /is not on this merchant's payout allowlist for TRX \(test mode\) yet: it awaits an admin's approval/);

    const own = await refusal(h.router.admin.approveAllowedAddress(added.id, { by: "user_alice" }));
    expect(own).toMatchObject({ type: "approval_by_requester", status: 403, code: 40301 });
    expect(own.message).toBe(`Payout address ${added.id} was proposed by user_alice; someone else must approve it.`);

    const approved = await h.router.admin.approveAllowedAddress(added.id, { by: "user_bob" });
    const usableAt = new Date(h.clock.ms + 24 * HOUR * 60_000).toISOString();
    expect(approved).toMatchObject({ approvedBy: "user_bob", approvedAt: new Date(h.clock.ms).toISOString(), usableAt, state: "cooling_off" });
    expect(await refusal(h.router.admin.approveAllowedAddress(added.id, { by: "user_carol" }))).toMatchObject({ type: "invalid_state", status: 409 });

    expectError(await withdraw(h), 422, 42204, new RegExp(`^${ADDRESS} becomes usable at ${usableAt.replace(/\./g, "\\.")} \\(cooling-off\\)`));
    h.clock.advanceMinutes(24 * HOUR - 1);
    expectError(await withdraw(h), 422, 42204, /cooling-off/);
    expect((await balances(h)).USDT!.available).toBe("99.5");
    h.clock.advanceMinutes(1);
    expect((await h.router.admin.listAllowedAddresses(h.merchant.id))[0]).toMatchObject({ id: added.id, state: "usable" });
    const sent = await withdraw(h);
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.status).toBe("PROCESSING");
    const payout = await h.post("/api/v1/merchants/payout/create", { currency: "USDT", network: "TRX", amount: 10, address: ADDRESS });
    expect(payout.status, payout.text).toBe(200);
    expect((await balances(h)).USDT!.available).toBe("75.5");

    // Removal takes effect at once.
    const removed = await h.router.admin.removeAllowedAddress(added.id, { by: "user_carol" });
    expect(removed).toMatchObject({ id: added.id, state: "usable" });
    expectError(await withdraw(h), 422, 42204, /is not on this merchant's payout allowlist/);
    expect(await h.router.admin.listAllowedAddresses(h.merchant.id)).toEqual([]);
    expect(await refusal(h.router.admin.removeAllowedAddress(added.id, { by: "user_carol" }))).toMatchObject({ type: "not_found", status: 404 });
    expect(await refusal(h.router.admin.approveAllowedAddress("pad_unknown", { by: "user_carol" }))).toMatchObject({ type: "not_found" });
  });

  it("lets refunds through to a usable address", async () => {
    const h = await setup({ payouts: { allowlist: { coolingOffHours: 0 } } });
    const payment = await paidPayment(h, "100");
    await h.router.admin.setAllowlist(h.merchant.id, { enabled: true });
    await listed(h, ADDRESS, "TRX");
    const refund = await h.post("/v1/refunds", { paymentId: payment.id, amount: "20", address: ADDRESS });
    expect(refund.status, refund.text).toBe(200);
    expect((await balances(h)).USDT!.available).toBe("77.5");
  });

  it("compares EVM addresses whatever their letter case, and Bitcoin addresses exactly", async () => {
    const h = await setup({ payouts: { allowlist: { coolingOffHours: 0 } } });
    await paidPayment(h, "100");
    await paidPayment(h, "0.01", "BTC", "BTC");
    await h.router.admin.setAllowlist(h.merchant.id, { enabled: true });
    await listed(h, EVM_CHECKSUMMED, "ETH");
    await listed(h, BTC, "BTC");

    const lower = await withdraw(h, EVM_LOWER, "ETH");
    expect(lower.status, lower.text).toBe(200);
    expect((await withdraw(h, EVM_CHECKSUMMED, "ETH")).status).toBe(200);
    // One network's list is not another's: the same address on BSC is not listed.
    expectError(await withdraw(h, EVM_LOWER, "BSC"), 422, 42204, /for BSC \(test mode\)/);

    const btc = (address: string) => h.post("/v1/withdrawals", { currency: "BTC", chain: "BTC", amount: "0.001", address });
    expect((await btc(BTC)).status).toBe(200);
    expectError(await btc(BTC.toUpperCase()), 422, 42204, /is not on this merchant's payout allowlist/);

    // Listing one spelling lists the address: the other is refused as a repeat.
    const again = await refusal(
      h.router.admin.addAllowedAddress({ merchantId: h.merchant.id, mode: "test", network: "ETH", address: EVM_LOWER, by: "user_carol" }),
    );
    expect(again).toMatchObject({ type: "invalid_state", status: 409 });
  });

  it("keeps each mode's and each merchant's list apart", async () => {
    const h = await setup({ payouts: { allowlist: { coolingOffHours: 0 } } });
    await paidPayment(h, "100");
    await h.router.admin.setAllowlist(h.merchant.id, { enabled: true });
    await listed(h, ADDRESS, "TRX", "live");
    await listed(h, ADDRESS, "TRX", "test", h.other.id);
    expectError(await withdraw(h), 422, 42204, /for TRX \(test mode\)/);
    expect((await h.router.admin.listAllowedAddresses(h.merchant.id, { mode: "test" })).length).toBe(0);
    expect((await h.router.admin.listAllowedAddresses(h.merchant.id, { mode: "live" })).map((entry) => entry.mode)).toEqual(["live"]);
    expect((await h.router.admin.listAllowedAddresses(h.other.id)).map((entry) => `${entry.mode} ${entry.address}`)).toEqual([`test ${ADDRESS}`]);

    // The other merchant's allowlist is off: its payouts go anywhere, its list notwithstanding.
    await paidPayment({ ...h, testKey: h.otherTestKey, post: (path, body) => h.post(path, body, h.otherTestKey) } as Harness, "100");
    expect((await withdraw(h, "TQjw9LfWkygUMPoV5tvokXQX2YLdStctTe", "TRX", h.otherTestKey)).status).toBe(200);
  });

  it("checks proposals: a known network, an address its chain accepts, a label, and who proposes", async () => {
    const h = await setup();
    const base = { merchantId: h.merchant.id, mode: "test" as const, network: "TRX", address: ADDRESS, by: "user_alice" };
    expect(await refusal(h.router.admin.addAllowedAddress({ ...base, network: "DOGE" }))).toMatchObject({ type: "unsupported_currency", status: 400 });
    expect(await refusal(h.router.admin.addAllowedAddress({ ...base, address: "not an address" }))).toMatchObject({ type: "validation_error" });
    expect(await refusal(h.router.admin.addAllowedAddress({ ...base, address: EVM_LOWER }))).toMatchObject({ type: "invalid_address", status: 400 });
    expect(await refusal(h.router.admin.addAllowedAddress({ ...base, label: "x".repeat(101) }))).toMatchObject({ type: "validation_error" });
    expect(await refusal(h.router.admin.addAllowedAddress({ ...base, merchantId: "mch_unknown" }))).toMatchObject({ type: "not_found" });
    await expect(h.router.admin.addAllowedAddress({ ...base, by: " " })).rejects.toThrow(TypeError);
    await expect(h.router.admin.setAllowlist(h.merchant.id, { enabled: "yes" as unknown as boolean })).rejects.toThrow(TypeError);
    expect(await h.router.admin.listAllowedAddresses(h.merchant.id)).toEqual([]);
  });

  it("checks its option when the router is created", () => {
    expect(() => createPaymentRouter({ payouts: { allowlist: { coolingOffHours: -1 } } })).toThrow(/coolingOffHours/);
    expect(() => createPaymentRouter({ payouts: { allowlist: { coolingOffHours: 721 } } })).toThrow(/coolingOffHours/);
  });

  it("records every change in the audit log: the switch, proposals, approvals, removals and approval thresholds", async () => {
    const h = await setup();
    // A minute between steps: the log orders entries of one instant by id.
    const step = async (work: () => Promise<unknown>) => {
      h.clock.advanceMinutes(1);
      await work();
    };
    await step(() => h.router.admin.setAllowlist(h.merchant.id, { enabled: true, by: "user_alice" }));
    await step(() => h.router.admin.setAllowlist(h.merchant.id, { enabled: true, by: "user_alice" })); // no change: nothing recorded
    const added = await h.router.admin.addAllowedAddress({ merchantId: h.merchant.id, mode: "test", network: "TRX", address: ADDRESS, by: "user_alice" });
    const id = added.id;
    await step(() => h.router.admin.approveAllowedAddress(id, { by: "user_bob" }));
    await step(() => h.router.admin.removeAllowedAddress(id, { by: "user_carol" }));
    await step(() => h.router.admin.setAllowlist(h.merchant.id, { enabled: false }));
    await step(() => h.router.admin.setPayoutApproval(h.merchant.id, { above: "100", currency: "USD" }, { by: "user_dave" }));
    await step(() => h.router.admin.setPayoutApproval(h.merchant.id, { above: "100", currency: "USD" }, { by: "user_dave" })); // no change
    await step(() => h.router.admin.setPayoutApproval(h.merchant.id, null));
    // A refused approval changes nothing and records nothing.
    const other = await h.router.admin.addAllowedAddress({ merchantId: h.other.id, mode: "test", network: "TRX", address: ADDRESS, by: "user_eve" });
    await refusal(h.router.admin.approveAllowedAddress(other.id, { by: "user_eve" }));

    const mine = (await h.router.admin.listAuditLog({ merchantId: h.merchant.id })).entries.filter((entry) => !entry.action.startsWith("api_key."));
    expect(mine.map(({ actor, action, recordId, mode }) => ({ actor, action, recordId, mode })).reverse()).toEqual([
      { actor: "user_alice", action: "payout_allowlist.enabled", recordId: h.merchant.id, mode: null },
      { actor: "user_alice", action: "payout_address.added", recordId: id, mode: "test" },
      { actor: "user_bob", action: "payout_address.approved", recordId: id, mode: "test" },
      { actor: "user_carol", action: "payout_address.removed", recordId: id, mode: "test" },
      { actor: "host", action: "payout_allowlist.disabled", recordId: h.merchant.id, mode: null },
      { actor: "user_dave", action: "payout_approval.changed", recordId: h.merchant.id, mode: null },
      { actor: "host", action: "payout_approval.changed", recordId: h.merchant.id, mode: null },
    ]);
    const others = (await h.router.admin.listAuditLog({ merchantId: h.other.id })).entries.filter((entry) => !entry.action.startsWith("api_key."));
    expect(others.map((entry) => entry.action)).toEqual(["payout_address.added"]);
  });
});
