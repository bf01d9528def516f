/**
 * Step 12: finding a payment by what a person has at hand. The dashboard's search asks for a
 * merchant's invoices whose `metadata.orderId` is a given string, and for those a given
 * transaction paid. Without these indexes both read every invoice of the merchant (or every
 * deposit): fine at a few thousand, seconds at a million.
 *
 * - `invoices_by_order_id` holds only invoices whose orderId is a string (the only ones the
 *   filter can match: metadata is `json`, and `->>` of a number is its text), so invoices
 *   without one cost nothing. The list's condition repeats the index's predicate word for word,
 *   which is what lets the planner use a partial index.
 * - `deposits_by_tx_hash`: the chain identity constraint starts with (mode, network), so it
 *   cannot answer "which deposits came in this transaction" on its own.
 *
 * Built inside the migration's transaction, they hold writes to both tables while they build
 * (about 2 s for a million invoices). `IF NOT EXISTS` lets an operator of a large database build
 * them beforehand with `CREATE INDEX CONCURRENTLY` (docs/storage.md), and the step then finds
 * them made.
 */
// Typed by shape, not by importing `Migration`: migrations.ts imports this file.
export const SEARCH_MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  {
    version: 12,
    name: "search: invoices by metadata.orderId and deposits by transaction hash, from indexes",
    sql: `
CREATE INDEX IF NOT EXISTS invoices_by_order_id ON invoices (merchant_id, mode, (metadata ->> 'orderId')) WHERE json_typeof(metadata -> 'orderId') = 'string';
CREATE INDEX IF NOT EXISTS deposits_by_tx_hash ON deposits (tx_hash);
`,
  },
];
