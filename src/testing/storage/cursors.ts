import { describe, expect, it } from "vitest";
import type { SuiteContext } from "./context";
import { type FreshnessCase, freshnessTests } from "./freshness";
import { gate, seed, sleep } from "./fixtures";
import { lockTests } from "./shared";

const FRESHNESS: FreshnessCase[] = [
  { read: "getCursor", write: "setCursor", look: (r) => r.getCursor("bitcoin"), change: (tx) => tx.setCursor("bitcoin", "200"), after: "200" },
];

/** CursorStore: named values, and lockCursor holding a name (stored or not) for its transaction, as nonce counters need. */
export function cursorTests(ctx: SuiteContext): void {
  describe("CursorStore: cursors and named values", () => {
    it("returns null, empty lists or 0n for anything never stored", async () => {
      const storage = ctx.storage();
      expect(await storage.getCursor("bitcoin")).toBeNull();
      await storage.transaction(async (tx) => {
        expect(await tx.lockCursor("bitcoin")).toBeNull();
      });
    });

    it("returns records as they were stored, bigints, nulls and nested data included", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.getCursor("bitcoin")).toBe("100");
      await storage.transaction(async (tx) => {
        expect(await tx.lockCursor("bitcoin")).toBe("100");
      });
    });

    it("replaces a cursor when it is set again", async () => {
      const storage = ctx.storage();
      await storage.transaction((tx) => tx.setCursor("bitcoin", "1"));
      await storage.transaction((tx) => tx.setCursor("bitcoin", "2"));
      await storage.transaction((tx) => tx.setCursor("deposits:test:sandbox:abc", "x"));
      expect(await storage.getCursor("bitcoin")).toBe("2");
      expect(await storage.getCursor("deposits:test:sandbox:abc")).toBe("x");
    });

    lockTests(ctx, [["lockCursor", (tx) => tx.lockCursor("bitcoin"), (tx) => tx.setCursor("bitcoin", "200"), (tx) => tx.lockCursor("bitcoin")]]);

    it("lockCursor returns null for a name never stored, then what setCursor stored, inside the transaction and after it", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        expect(await tx.lockCursor("ethereum:nonce")).toBeNull();
        await tx.setCursor("ethereum:nonce", "0");
        // Locking a name the transaction holds already does not wait for itself.
        expect(await tx.lockCursor("ethereum:nonce")).toBe("0");
      });
      expect(await storage.transaction((tx) => tx.lockCursor("ethereum:nonce"))).toBe("0");
      expect(await storage.getCursor("ethereum:nonce")).toBe("0");
    });

    it("lockCursor holds a name nothing is stored under yet: a second transaction locking it waits, then sees the first one's value", async () => {
      const storage = ctx.storage();
      const hold = gate();
      const locked = gate();
      const log: string[] = [];
      const first = storage.transaction(async (tx) => {
        log.push(`first locked ${await tx.lockCursor("ethereum:nonce")}`);
        locked.open();
        await hold.promise;
        await tx.setCursor("ethereum:nonce", "1");
        log.push("first wrote");
      });
      await locked.promise;
      const second = storage.transaction(async (tx) => {
        const value = await tx.lockCursor("ethereum:nonce");
        log.push("second locked");
        return value;
      });
      await sleep(50);
      const whileHeld = [...log];
      hold.open();
      await first;
      expect(await second).toBe("1");
      expect(whileHeld).toEqual(["first locked null"]); // the second was still waiting for the first
      expect(log).toEqual(["first locked null", "first wrote", "second locked"]);
    });

    it("lockCursor serializes read-increment-write: N transactions counting on one new name hand out N numbers and lose no update", async () => {
      const storage = ctx.storage();
      const handedOut: number[] = [];
      await Promise.all(
        Array.from({ length: ctx.parallelism }, () =>
          storage.transaction(async (tx) => {
            const nonce = Number((await tx.lockCursor("ethereum:nonce")) ?? "0");
            await sleep(1); // signing with the nonce, between reading it and storing the next one
            await tx.setCursor("ethereum:nonce", String(nonce + 1));
            handedOut.push(nonce);
          }),
        ),
      );
      expect(handedOut.sort((a, b) => a - b)).toEqual(Array.from({ length: ctx.parallelism }, (_, i) => i));
      expect(await storage.getCursor("ethereum:nonce")).toBe(String(ctx.parallelism));
    });

    it("lockCursor holds only its own name: transactions holding different names both run, one committing while the other is still open", async () => {
      const storage = ctx.storage();
      const holdFirst = gate();
      const holdSecond = gate();
      const firstLocked = gate();
      const secondLocked = gate();
      const holding = (name: string, locked: { open: () => void }, hold: Promise<void>) =>
        storage.transaction(async (tx) => {
          await tx.lockCursor(name);
          locked.open();
          await hold;
          await tx.setCursor(name, "1");
        });
      const first = holding("ethereum:nonce", firstLocked, holdFirst.promise);
      await firstLocked.promise;
      const second = holding("polygon:nonce", secondLocked, holdSecond.promise);
      // Only an adapter that runs transactions side by side can keep this promise: one that runs
      // them one at a time (as memoryStorage and PGlite do) holds every name while any transaction
      // is open, which the contract allows. A transaction locking nothing tells which kind this is.
      const probe = storage.transaction((tx) => tx.getCursor("bitcoin"));
      const sideBySide = await Promise.race([probe.then(() => true), sleep(250).then(() => false)]);
      let bothHeld: boolean | null = null;
      if (sideBySide) {
        bothHeld = await Promise.race([secondLocked.promise.then(() => true), sleep(5_000).then(() => false)]);
        holdFirst.open();
        await first; // commits while the second still holds its name
      }
      holdFirst.open();
      holdSecond.open();
      await Promise.all([first, second, probe]);
      if (sideBySide) expect(bothHeld).toBe(true);
      expect(await storage.getCursor("ethereum:nonce")).toBe("1");
      expect(await storage.getCursor("polygon:nonce")).toBe("1");
    });

    it("lockCursor's name is released by a rollback, which writes nothing", async () => {
      const storage = ctx.storage();
      const hold = gate();
      const locked = gate();
      const log: string[] = [];
      const failed = storage.transaction(async (tx) => {
        await tx.lockCursor("ethereum:nonce");
        await tx.setCursor("ethereum:nonce", "1");
        locked.open();
        await hold.promise;
        log.push("first threw");
        throw new Error("signing failed");
      });
      await locked.promise;
      const next = storage.transaction(async (tx) => {
        const value = await tx.lockCursor("ethereum:nonce");
        log.push("second locked");
        await tx.setCursor("ethereum:nonce", "7");
        return value;
      });
      await sleep(50);
      const whileHeld = [...log];
      hold.open();
      await expect(failed).rejects.toThrow("signing failed");
      expect(await next).toBeNull();
      expect(whileHeld).toEqual([]);
      expect(log).toEqual(["first threw", "second locked"]);
      expect(await storage.getCursor("ethereum:nonce")).toBe("7");
    });

    freshnessTests(ctx, FRESHNESS);
  });
}
