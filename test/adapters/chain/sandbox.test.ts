import { describe, expect, it } from "vitest";
import { sandboxChain } from "../../../src/adapters/chain/sandbox";

const TRX = { coin: "USDT", network: "TRX" } as const;

function deposit(chain: ReturnType<typeof sandboxChain>, amount = 5_000_000n, confirmations?: number) {
  return chain.createDeposit({ ...TRX, address: "sbx_trx_abcdefghijklmnopqrstuvwx", amount, confirmations });
}

describe("sandboxChain", () => {
  it("is named sandbox and supports every coin and network", () => {
    const chain = sandboxChain();
    expect(chain.name).toBe("sandbox");
    expect(chain.supports("BTC", "BTC")).toBe(true);
    expect(chain.supports("ANY", "THING")).toBe(true);
  });

  describe("addresses", () => {
    it("issues recognisable addresses tagged with the network", async () => {
      const chain = sandboxChain();
      const address = await chain.createAddress({ ...TRX, merchantId: "m_1", invoiceId: "inv_1" });
      expect(address).toMatch(/^sbx_trx_[0-9A-Za-z]{24}$/);
    });

    it("never issues the same address twice", async () => {
      const chain = sandboxChain();
      const addresses = new Set<string>();
      for (let i = 0; i < 2000; i++) {
        addresses.add(await chain.createAddress({ ...TRX, merchantId: "m_1", invoiceId: `inv_${i}` }));
      }
      expect(addresses.size).toBe(2000);
    });

    it("keeps an odd network code inside the address alphabet", async () => {
      const chain = sandboxChain();
      const address = await chain.createAddress({ coin: "X", network: "My Net/2", merchantId: "m", invoiceId: "i" });
      expect(address).toMatch(/^sbx_my-net-2_[0-9A-Za-z]{24}$/);
      expect(await chain.isValidAddress("X", "My Net/2", address)).toBe(true);
    });

    it("does not take its deposit addresses for payout destinations on a network with an address rule", async () => {
      const chain = sandboxChain();
      const address = await chain.createAddress({ coin: "BTC", network: "BTC", merchantId: "m", invoiceId: "i" });
      expect(await chain.isValidAddress("BTC", "BTC", address)).toBe(false);
    });

    it.each([
      ["USDT", "TRX", "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7"],
      ["ETH", "ETH", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"],
      ["USDT", "BSC", "0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359"],
      ["BTC", "BTC", "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"],
      ["BTC", "BTC", "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy"],
      ["LTC", "LTC", "ltc1qytnqzjknvv03jwfgrsmzt0ycmwqgl0asjnaxwu"],
      ["LTC", "LTC", "MHrYRxAiMNBTku3eoDHwhA1LQGDjUStZW2"],
    ])("accepts a real %s address on %s: %s", async (coin, network, address) => {
      expect(await sandboxChain().isValidAddress(coin, network, address)).toBe(true);
    });

    it.each([
      ["BTC", "tb1qcrh3yqn4nlleplcez2yndq2ry8h9ncg3qh7n54"],
      ["BTC", "bcrt1qdavt4j2sd7dlhqsavtnfxvzppw6k7qy97tmnu9"],
      ["BTC", "mzK2FFDEhxqHcmrJw1ysqFkVyhUULo45hZ"],
      ["LTC", "tltc1qj08ys4ct2hzzc2hcz6h2hgrvlmsjynawvejepa"],
      ["LTC", "QgDNrG4nJpE4VV7PcFMFhkTgwAHWxWS7pj"],
    ])("accepts test-chain and regtest addresses too, on %s: %s", async (network, address) => {
      expect(await sandboxChain().isValidAddress(network, network, address)).toBe(true);
    });

    it.each([
      ["a word", "TRX", "not-an-address"],
      ["the old sandbox example", "TRX", "invalid-address"],
      ["a TRON address with one character changed", "TRX", "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU8"],
      ["a made-up T... string", "TRX", "TXyz12345678"],
      ["a mixed-case address with a wrong checksum", "ETH", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD"],
      ["the zero address", "BSC", "0x0000000000000000000000000000000000000000"],
      ["a Bitcoin address", "LTC", "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"],
      ["a Litecoin address", "BTC", "ltc1qytnqzjknvv03jwfgrsmzt0ycmwqgl0asjnaxwu"],
      ["an Ethereum address", "TRX", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"],
      ["empty", "ETH", ""],
    ])("refuses %s as a destination on %s", async (_label, network, address) => {
      expect(await sandboxChain().isValidAddress("USDT", network, address)).toBe(false);
    });

    it.each(["sbx_my-net-2_abcdefghijklmnopqrstuvwx", "0x52908400098527886E0F7030069857D2E4169EE7", "bc1q:abc.def-ghi_jkl", "a".repeat(128)])(
      "accepts %s on a network with no address rule, by its shape",
      async (address) => {
        expect(await sandboxChain().isValidAddress("X", "My Net/2", address)).toBe(true);
      },
    );

    it.each([
      ["too short", "abc1234"],
      ["too long", "a".repeat(129)],
      ["with a space", "abc defghij"],
      ["with a slash", "abcdefgh/ij"],
      ["empty", ""],
    ])("refuses an address that is %s on a network with no address rule", async (_label, address) => {
      expect(await sandboxChain().isValidAddress("X", "My Net/2", address)).toBe(false);
    });
  });

  describe("deposits", () => {
    it("creates a deposit with a random 0x transaction hash and no confirmations by default", () => {
      const chain = sandboxChain();
      const { txHash, outputIndex } = deposit(chain);
      expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(outputIndex).toBe(0);
      expect(chain.getDeposit(txHash)).toEqual({
        ...TRX,
        address: "sbx_trx_abcdefghijklmnopqrstuvwx",
        txHash,
        outputIndex: 0,
        amount: 5_000_000n,
        confirmations: 0,
        dropped: false,
      });
    });

    it("creates a deposit with the confirmations given", () => {
      const chain = sandboxChain();
      const { txHash } = deposit(chain, 1n, 3);
      expect(chain.getDeposit(txHash)?.confirmations).toBe(3);
    });

    it("gives every deposit its own transaction hash", () => {
      const chain = sandboxChain();
      const hashes = new Set(Array.from({ length: 500 }, () => deposit(chain).txHash));
      expect(hashes.size).toBe(500);
    });

    it("rejects a non-positive amount and malformed confirmations", () => {
      const chain = sandboxChain();
      expect(() => deposit(chain, 0n)).toThrow(RangeError);
      expect(() => deposit(chain, -1n)).toThrow(RangeError);
      expect(() => deposit(chain, 1n, -1)).toThrow(RangeError);
      expect(() => deposit(chain, 1n, 1.5)).toThrow(RangeError);
      const { txHash } = deposit(chain);
      expect(() => chain.setConfirmations(txHash, -2)).toThrow(RangeError);
    });

    it("updates confirmations", () => {
      const chain = sandboxChain();
      const { txHash } = deposit(chain);
      expect(chain.setConfirmations(txHash, 19)).toBe(true);
      expect(chain.getDeposit(txHash)?.confirmations).toBe(19);
    });

    it("marks a dropped deposit and keeps it dropped", () => {
      const chain = sandboxChain();
      const { txHash } = deposit(chain, 1n, 2);
      expect(chain.drop(txHash)).toBe(true);
      expect(chain.getDeposit(txHash)?.dropped).toBe(true);
      expect(chain.drop(txHash)).toBe(true);
      expect(chain.setConfirmations(txHash, 5)).toBe(false);
      expect(chain.getDeposit(txHash)?.confirmations).toBe(2);
    });

    it("answers false or undefined for an unknown transaction instead of throwing", () => {
      const chain = sandboxChain();
      expect(chain.setConfirmations("0xnope", 1)).toBe(false);
      expect(chain.drop("0xnope")).toBe(false);
      expect(chain.getDeposit("0xnope")).toBeUndefined();
    });

    it("hands out copies that cannot change the simulated chain", () => {
      const chain = sandboxChain();
      const { txHash } = deposit(chain);
      const copy = chain.getDeposit(txHash)!;
      copy.confirmations = 99;
      copy.dropped = true;
      expect(chain.getDeposit(txHash)).toMatchObject({ confirmations: 0, dropped: false });
    });
  });

  describe("pollDeposits", () => {
    it("reports nothing on an empty chain and keeps the cursor at 0", async () => {
      expect(await sandboxChain().pollDeposits(null, 10)).toEqual({ deposits: [], cursor: "0", hasMore: false });
    });

    it("reports every change as the deposit's whole state, in order", async () => {
      const chain = sandboxChain();
      const { txHash } = deposit(chain);
      chain.setConfirmations(txHash, 1);
      chain.setConfirmations(txHash, 19);
      chain.drop(txHash);
      const page = await chain.pollDeposits(null, 100);
      expect(page.cursor).toBe("4");
      expect(page.hasMore).toBe(false);
      expect(page.deposits.map((d) => [d.txHash, d.confirmations, d.dropped])).toEqual([
        [txHash, 0, false],
        [txHash, 1, false],
        [txHash, 19, false],
        [txHash, 19, true],
      ]);
      expect(page.deposits[0]).toMatchObject({ ...TRX, amount: 5_000_000n, outputIndex: 0 });
    });

    it("logs no change when nothing changed", async () => {
      const chain = sandboxChain();
      const { txHash } = deposit(chain, 1n, 3);
      chain.setConfirmations(txHash, 3);
      chain.drop(txHash);
      chain.drop(txHash);
      chain.setConfirmations(txHash, 4);
      expect((await chain.pollDeposits(null, 100)).deposits).toHaveLength(2);
    });

    it("pages by limit and resumes after the cursor", async () => {
      const chain = sandboxChain();
      const hashes = Array.from({ length: 5 }, () => deposit(chain).txHash);
      const first = await chain.pollDeposits(null, 2);
      expect(first).toMatchObject({ cursor: "2", hasMore: true });
      expect(first.deposits.map((d) => d.txHash)).toEqual(hashes.slice(0, 2));
      const second = await chain.pollDeposits(first.cursor, 2);
      expect(second).toMatchObject({ cursor: "4", hasMore: true });
      expect(second.deposits.map((d) => d.txHash)).toEqual(hashes.slice(2, 4));
      const third = await chain.pollDeposits(second.cursor, 2);
      expect(third).toMatchObject({ cursor: "5", hasMore: false });
      expect(third.deposits.map((d) => d.txHash)).toEqual(hashes.slice(4));
      const empty = await chain.pollDeposits(third.cursor, 2);
      expect(empty).toEqual({ deposits: [], cursor: "5", hasMore: false });
    });

    it("reports changes made after the last poll", async () => {
      const chain = sandboxChain();
      const { txHash } = deposit(chain);
      const first = await chain.pollDeposits(null, 10);
      chain.setConfirmations(txHash, 7);
      const second = await chain.pollDeposits(first.cursor, 10);
      expect(second.deposits).toHaveLength(1);
      expect(second.deposits[0]).toMatchObject({ txHash, confirmations: 7 });
      expect(second.cursor).toBe("2");
    });

    it("keeps logged states as they were when recorded", async () => {
      const chain = sandboxChain();
      const { txHash } = deposit(chain);
      chain.setConfirmations(txHash, 10);
      const page = await chain.pollDeposits(null, 1);
      expect(page.deposits[0]?.confirmations).toBe(0);
    });

    it("hands out copies of logged states", async () => {
      const chain = sandboxChain();
      deposit(chain);
      const page = await chain.pollDeposits(null, 1);
      page.deposits[0]!.confirmations = 42;
      expect((await chain.pollDeposits(null, 1)).deposits[0]?.confirmations).toBe(0);
    });

    it("reads from the start when the cursor is past the end, as after a restart", async () => {
      const chain = sandboxChain();
      const { txHash } = deposit(chain);
      const page = await chain.pollDeposits("50", 10);
      expect(page.deposits.map((d) => d.txHash)).toEqual([txHash]);
      expect(page.cursor).toBe("1");
    });

    it("rejects a malformed cursor or limit", async () => {
      const chain = sandboxChain();
      await expect(chain.pollDeposits("abc", 10)).rejects.toThrow(RangeError);
      await expect(chain.pollDeposits("-1", 10)).rejects.toThrow(RangeError);
      await expect(chain.pollDeposits(null, 0)).rejects.toThrow(RangeError);
      await expect(chain.pollDeposits(null, 1.5)).rejects.toThrow(RangeError);
    });
  });

  describe("payouts", () => {
    const request = { payoutId: "po_1", coin: "USDT", network: "TRX", address: "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7", amount: 10_000_000n };

    it("returns a transaction hash and records the payout", async () => {
      const chain = sandboxChain({ now: () => 1_700_000_000_000 });
      const { txHash } = await chain.sendPayout(request);
      expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(chain.getPayout("po_1")).toEqual({ ...request, txHash, sentAt: 1_700_000_000_000 });
    });

    it("is idempotent by payoutId", async () => {
      const chain = sandboxChain();
      const first = await chain.sendPayout(request);
      const second = await chain.sendPayout({ ...request, amount: 1n });
      expect(second.txHash).toBe(first.txHash);
      expect(chain.getPayout("po_1")?.amount).toBe(10_000_000n);
      const other = await chain.sendPayout({ ...request, payoutId: "po_2" });
      expect(other.txHash).not.toBe(first.txHash);
    });

    it("reports a sent payout as confirmed", async () => {
      const chain = sandboxChain();
      const { txHash } = await chain.sendPayout(request);
      expect(await chain.getPayoutStatus({ payoutId: "po_1", txHash, coin: "USDT", network: "TRX" })).toEqual({ status: "confirmed" });
    });

    it("reports a payout as failed with the reason given to failPayout", async () => {
      const chain = sandboxChain();
      const { txHash } = await chain.sendPayout(request);
      expect(chain.failPayout("po_1", "out of gas")).toBe(true);
      const status = { payoutId: "po_1", txHash, coin: "USDT", network: "TRX" };
      expect(await chain.getPayoutStatus(status)).toEqual({ status: "failed", reason: "out of gas" });
      expect(await chain.getPayoutStatus(status)).toEqual({ status: "failed", reason: "out of gas" });
    });

    it("keeps a payout confirmed once it was reported confirmed", async () => {
      const chain = sandboxChain();
      const { txHash } = await chain.sendPayout(request);
      const status = { payoutId: "po_1", txHash, coin: "USDT", network: "TRX" };
      await chain.getPayoutStatus(status);
      expect(chain.failPayout("po_1", "too late")).toBe(false);
      expect(await chain.getPayoutStatus(status)).toEqual({ status: "confirmed" });
    });

    it("reports a payout another instance sent as confirmed, and refuses to fail it", async () => {
      const chain = sandboxChain();
      expect(await chain.getPayoutStatus({ payoutId: "po_x", txHash: "0x00", coin: "USDT", network: "TRX" })).toEqual({ status: "confirmed" });
      expect(chain.failPayout("po_x", "nope")).toBe(false);
      expect(chain.getPayout("po_x")).toBeUndefined();
    });

    it("stamps payouts with the current time by default", async () => {
      const before = Date.now();
      const chain = sandboxChain();
      await chain.sendPayout(request);
      expect(chain.getPayout("po_1")!.sentAt).toBeGreaterThanOrEqual(before);
    });
  });

  it("keeps separate instances apart", async () => {
    const first = sandboxChain();
    const second = sandboxChain();
    const { txHash } = deposit(first);
    expect(second.getDeposit(txHash)).toBeUndefined();
    expect((await second.pollDeposits(null, 10)).deposits).toEqual([]);
  });
});
