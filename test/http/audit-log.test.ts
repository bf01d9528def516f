import { describe, expect, it } from "vitest";
import { setup } from "../helpers";
import { ADDRESS, paidPayment } from "./v1/support";

/** `payments.admin.listAuditLog`: approvals, rejections and API keys issued or revoked, newest first, paged. */

describe("the audit log", () => {
  it("records keys issued and revoked, approvals and rejections, with who, when, the record, merchant and mode", async () => {
    const h = await setup({ payouts: { approval: { above: "5", currency: "USDT" } } });
    // setup issued three keys (test and live for the merchant, one for the other merchant) as the host, at one time (so in id order).
    const first = await h.router.admin.listAuditLog();
    expect(first.entries.map((entry) => `${entry.action} ${entry.actor} ${entry.mode} ${entry.merchantId === h.merchant.id}`).sort()).toEqual([
      "api_key.issued host live true",
      "api_key.issued host test false",
      "api_key.issued host test true",
    ]);
    expect(first.entries.map((entry) => entry.id)).toEqual(
      first.entries
        .map((entry) => entry.id)
        .sort()
        .reverse(),
    );
    expect(first.nextCursor).toBeNull();

    await paidPayment(h, "100");
    const ask = () => h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount: "10", address: ADDRESS });
    const approved = (await ask()).body.id as string;
    const rejected = (await ask()).body.id as string;
    h.clock.advanceMinutes(1);
    await h.router.admin.approvePayout(approved, { by: "user_alice" });
    h.clock.advanceMinutes(1);
    await h.router.admin.rejectPayout(rejected, { by: "user_bob", reason: "duplicate" });
    h.clock.advanceMinutes(1);
    const key = await h.router.admin.issueApiKey(h.merchant.id, { mode: "live", by: "user_carol" });
    h.clock.advanceMinutes(1);
    expect(await h.router.admin.revokeApiKey(key.id, { by: "user_dave" })).toBe(true);
    expect(await h.router.admin.revokeApiKey(key.id, { by: "user_dave" })).toBe(false); // nothing changed: nothing recorded

    const log = await h.router.admin.listAuditLog({ merchantId: h.merchant.id, limit: 4 });
    expect(log.entries).toEqual([
      {
        id: expect.stringMatching(/^aud_/),
        actor: "user_dave",
        action: "api_key.revoked",
        recordId: key.id,
        merchantId: h.merchant.id,
        mode: "live",
        at: iso(h.clock.ms),
      },
      {
        id: expect.any(String),
        actor: "user_carol",
        action: "api_key.issued",
        recordId: key.id,
        merchantId: h.merchant.id,
        mode: "live",
        at: iso(h.clock.ms - 60_000),
      },
      {
        id: expect.any(String),
        actor: "user_bob",
        action: "payout.rejected",
        recordId: rejected,
        merchantId: h.merchant.id,
        mode: "test",
        at: iso(h.clock.ms - 120_000),
      },
      {
        id: expect.any(String),
        actor: "user_alice",
        action: "payout.approved",
        recordId: approved,
        merchantId: h.merchant.id,
        mode: "test",
        at: iso(h.clock.ms - 180_000),
      },
    ]);
    expect(log.nextCursor).toBe(log.entries[3]!.id);
    const rest = await h.router.admin.listAuditLog({ merchantId: h.merchant.id, limit: 4, cursor: log.nextCursor });
    expect(rest.entries.map((entry) => entry.action)).toEqual(["api_key.issued", "api_key.issued"]);
    expect(rest.nextCursor).toBeNull();
    const other = await h.router.admin.listAuditLog({ merchantId: h.other.id });
    expect(other.entries.map((entry) => entry.action)).toEqual(["api_key.issued"]);
  });

  it("records nothing for a decision that was refused", async () => {
    const h = await setup({ payouts: { approval: { above: "5", currency: "USDT" } } });
    await paidPayment(h, "100");
    const id = (await h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount: "10", address: ADDRESS })).body.id as string;
    const requester = (await h.router.admin.listApiKeys(h.merchant.id)).find((key) => key.mode === "test")!.id;
    await expect(h.router.admin.approvePayout(id, { by: requester })).rejects.toMatchObject({ code: 40301 });
    const actions = (await h.router.admin.listAuditLog()).entries.map((entry) => entry.action);
    expect(actions).not.toContain("payout.approved");
  });

  it("refuses a bad page size or cursor type, and an empty actor", async () => {
    const h = await setup();
    await expect(h.router.admin.listAuditLog({ limit: 0 })).rejects.toThrow(/limit/);
    await expect(h.router.admin.listAuditLog({ limit: 501 })).rejects.toThrow(/limit/);
    await expect(h.router.admin.listAuditLog({ cursor: 5 as unknown as string })).rejects.toThrow(/cursor/);
    await expect(h.router.admin.issueApiKey(h.merchant.id, { by: " " })).rejects.toThrow(/by/);
    expect((await h.router.admin.listAuditLog({ cursor: "aud_unknown" })).entries).toEqual([]);
  });
});

const iso = (ms: number) => new Date(ms).toISOString();
