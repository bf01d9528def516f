import type { Storage } from "../../src/index";
import type { StorageTransaction } from "../../src/storage";

/**
 * A transaction on `storage` that runs `work`, then stays open until `release` is called: on a
 * PostgreSQL server, what it wrote exists uncommitted meanwhile, as another instance's unit of
 * work in progress. `worked` resolves once `work` is done and its writes were sent; `done`
 * settles with the commit.
 */
export function heldTransaction(storage: Storage, work: (tx: StorageTransaction) => Promise<unknown>) {
  let release!: () => void;
  let ready!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const worked = new Promise<void>((resolve) => (ready = resolve));
  const done = storage.transaction(async (tx) => {
    await work(tx);
    // A read sends the writes made so far (the adapter defers writes until one).
    await tx.getCursor("held");
    ready();
    await released;
  });
  return { worked, release, done };
}
