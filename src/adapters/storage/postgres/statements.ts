import { sqlLiteral } from "./sql-literal";
import { quoteIdent } from "./migrations";
import {
  ADDRESS_COLUMNS,
  API_KEY_COLUMNS,
  ATTEMPT_COLUMNS,
  BALANCE_COLUMNS,
  DELIVERY_COLUMNS,
  DEPOSIT_COLUMNS,
  ENDPOINT_COLUMNS,
  EVENT_COLUMNS,
  EXCHANGE_COLUMNS,
  INVOICE_COLUMNS,
  LEDGER_COLUMNS,
  IDEMPOTENCY_COLUMNS,
  MERCHANT_COLUMNS,
  PAYMENT_LINK_COLUMNS,
  PAYOUT_COLUMNS,
  UNLISTED_COLUMNS,
} from "./rows";

/** `$1, $2, ..., $n`, with casts where a column needs one. */
function placeholders(count: number, casts: Record<number, string> = {}): string {
  return Array.from({ length: count }, (_, i) => `$${i + 1}${casts[i + 1] ?? ""}`).join(", ");
}

/** `a.col1, a.col2, ...`: a column list qualified by a table alias. */
function prefixed(alias: string, columns: string): string {
  return columns
    .split(",")
    .map((column) => `${alias}.${column.trim()}`)
    .join(", ");
}

/** `col1 = $2, col2 = $3, ...`: every column but the first (the id, matched by $1). */
function assignments(columns: string, casts: Record<number, string> = {}): string {
  return columns
    .split(",")
    .map((column) => column.trim())
    .slice(1)
    .map((column, i) => `${column} = $${i + 2}${casts[i + 2] ?? ""}`)
    .join(", ");
}

/**
 * The seed of the hash that names lockCursor's advisory locks. Any fixed value does: it only has
 * to be the same in every instance, and differ from the seed 0 other code hashing names likely uses.
 */
const CURSOR_LOCK_SEED = 7_461_737_431_373_237;

const INVOICE_CASTS = { 5: "::numeric", 7: "::json", 11: "::numeric", 12: "::numeric", 18: "::json", 19: "::numeric", 29: "::json", 30: "::numeric" };
const DEPOSIT_CASTS = { 10: "::numeric", 14: "::numeric", 19: "::numeric" };
const PAYOUT_CASTS = { 8: "::numeric", 9: "::numeric" };
const PAYMENT_LINK_CASTS = { 4: "::numeric", 6: "::json", 11: "::json" };
const EXCHANGE_CASTS = { 7: "::numeric", 8: "::numeric", 9: "::numeric" };
const ENDPOINT_CASTS = { 5: "::json", 6: "::json" };

/**
 * Every statement the adapter sends, built once per adapter with its schema's table names.
 * Explicit column lists everywhere (never `*`): a prepared statement's result shape then never
 * changes under it when a later migration adds a column.
 */
export function buildStatements(schema: string | undefined) {
  const q = (table: string) => (schema === undefined ? table : `${quoteIdent(schema)}.${table}`);
  // The schema the cursors live in, as the tables resolve: the connection's current one by default.
  const cursorLockSpace = schema === undefined ? "coalesce(current_schema(), '')" : sqlLiteral(schema);
  const t = {
    merchants: q("merchants"),
    apiKeys: q("api_keys"),
    invoices: q("invoices"),
    addresses: q("addresses"),
    deposits: q("deposits"),
    ledger: q("ledger_entries"),
    balances: q("balances"),
    payouts: q("payouts"),
    exchanges: q("exchanges"),
    events: q("events"),
    cursors: q("cursors"),
    endpoints: q("webhook_endpoints"),
    deliveries: q("webhook_deliveries"),
    attempts: q("webhook_attempts"),
    paymentLinks: q("payment_links"),
    idempotency: q("idempotency_keys"),
    unlisted: q("unlisted_transfers"),
  };
  return {
    tables: t,
    // Reads. A record of a scope is fetched by its id alone and its scope checked by the caller:
    // the primary key is then the only index the query can use, so the plan is right even
    // before the planner has statistics (PGlite runs no autovacuum to gather them).
    getMerchant: `SELECT ${MERCHANT_COLUMNS} FROM ${t.merchants} WHERE id = $1`,
    // With the key's merchant: authentication needs both, and one statement is one round trip.
    findApiKeyByHash:
      `SELECT ${prefixed("k", API_KEY_COLUMNS)}, m.name AS merchant_name, m.settle_currency AS merchant_settle_currency, ` +
      `m.created_at AS merchant_created_at FROM ${t.apiKeys} k JOIN ${t.merchants} m ON m.id = k.merchant_id WHERE k.hash = $1`,
    listApiKeys: `SELECT ${API_KEY_COLUMNS} FROM ${t.apiKeys} WHERE merchant_id = $1 ORDER BY created_at, seq`,
    getInvoice: `SELECT ${INVOICE_COLUMNS} FROM ${t.invoices} WHERE id = $1`,
    getPayout: `SELECT ${PAYOUT_COLUMNS} FROM ${t.payouts} WHERE id = $1`,
    getExchange: `SELECT ${EXCHANGE_COLUMNS} FROM ${t.exchanges} WHERE id = $1`,
    findAddress: `SELECT ${ADDRESS_COLUMNS} FROM ${t.addresses} WHERE mode = $1 AND network = $2 AND address = $3`,
    // One array parameter whatever the count: one statement text (prepared once), and the primary
    // key index is walked once per address. Repeats match one row once.
    findAddresses: `SELECT ${ADDRESS_COLUMNS} FROM ${t.addresses} WHERE mode = $1 AND network = $2 AND address = ANY($3::text[])`,
    listDepositsForInvoice: `SELECT ${DEPOSIT_COLUMNS} FROM ${t.deposits} WHERE invoice_id = $1 ORDER BY seq`,
    // An `after` that names no deposit pages from the start, as if none was given.
    listNotableDeposits:
      `SELECT ${DEPOSIT_COLUMNS} FROM ${t.deposits} WHERE mode = $1 AND (reversals > 0 OR NOT counts_toward_invoice) ` +
      `AND seq > coalesce((SELECT seq FROM ${t.deposits} WHERE id = $3), 0) ORDER BY seq LIMIT $2`,
    getBalance: `SELECT amount FROM ${t.balances} WHERE merchant_id = $1 AND mode = $2 AND asset = $3`,
    listBalances: `SELECT ${BALANCE_COLUMNS} FROM ${t.balances} WHERE merchant_id = $1 AND mode = $2 ORDER BY asset`,
    listLedgerEntries: `SELECT ${LEDGER_COLUMNS} FROM ${t.ledger} WHERE merchant_id = $1 AND mode = $2 ORDER BY seq`,
    listLedgerEntriesOfAsset: `SELECT ${LEDGER_COLUMNS} FROM ${t.ledger} WHERE merchant_id = $1 AND mode = $2 AND asset = $3 ORDER BY seq`,
    listEvents: `SELECT ${EVENT_COLUMNS} FROM ${t.events} WHERE merchant_id = $1 AND mode = $2 ORDER BY seq`,
    listEventsOfInvoice: `SELECT ${EVENT_COLUMNS} FROM ${t.events} WHERE invoice_id = $3 AND merchant_id = $1 AND mode = $2 ORDER BY seq`,
    listExpiringInvoices:
      `SELECT ${INVOICE_COLUMNS} FROM ${t.invoices} WHERE mode = $1 AND status IN ('PENDING', 'UNDER_PAID') AND expires_at <= $2 ` +
      "ORDER BY expires_at, id LIMIT $3",
    listPayoutsByStatus: `SELECT ${PAYOUT_COLUMNS} FROM ${t.payouts} WHERE mode = $1 AND status = $2 ORDER BY created_at, id LIMIT $3`,
    // An `after` that names no payout pages from the start, as if none was given.
    listPayoutsByStatusAfter:
      `WITH last AS (SELECT created_at, id FROM ${t.payouts} WHERE id = $4) ` +
      `SELECT ${PAYOUT_COLUMNS} FROM ${t.payouts} p WHERE p.mode = $1 AND p.status = $2 ` +
      "AND (NOT EXISTS (SELECT 1 FROM last) OR (p.created_at, p.id) > (SELECT created_at, id FROM last)) ORDER BY p.created_at, p.id LIMIT $3",
    getCursor: `SELECT value FROM ${t.cursors} WHERE key = $1`,
    listRefunds: `SELECT ${PAYOUT_COLUMNS} FROM ${t.payouts} WHERE refund_of = $1 ORDER BY created_at, id`,
    sumPendingDeposits:
      `SELECT coin AS asset, sum(amount) AS amount FROM ${t.deposits} WHERE merchant_id = $1 AND mode = $2 AND status = 'PENDING' ` +
      'GROUP BY coin ORDER BY coin COLLATE "C"',
    getPaymentLink: `SELECT ${PAYMENT_LINK_COLUMNS} FROM ${t.paymentLinks} WHERE id = $1`,
    findPaymentLink: `SELECT ${PAYMENT_LINK_COLUMNS} FROM ${t.paymentLinks} WHERE id = $1`,
    getWebhookEndpoint: `SELECT ${ENDPOINT_COLUMNS} FROM ${t.endpoints} WHERE id = $1`,
    listWebhookEndpoints: `SELECT ${ENDPOINT_COLUMNS} FROM ${t.endpoints} WHERE merchant_id = $1 AND mode = $2 ORDER BY created_at, id`,
    getWebhookDelivery: `SELECT ${DELIVERY_COLUMNS} FROM ${t.deliveries} WHERE id = $1`,
    // An `after` that names no delivery of the scope gives an empty page (the comparison is null).
    listWebhookDeliveries:
      `SELECT ${DELIVERY_COLUMNS} FROM ${t.deliveries} WHERE merchant_id = $1 AND mode = $2 ` +
      "AND ($3::text IS NULL OR endpoint_id = $3) AND ($4::text IS NULL OR event_type = $4) AND ($5::text IS NULL OR status = $5) " +
      `AND ($6::text IS NULL OR seq < (SELECT seq FROM ${t.deliveries} WHERE id = $6 AND merchant_id = $1 AND mode = $2)) ` +
      "ORDER BY seq DESC LIMIT $7",
    listWebhookAttempts: `SELECT ${ATTEMPT_COLUMNS} FROM ${t.attempts} WHERE delivery_id = $1 ORDER BY seq`,

    // Writes. Inserts use ON CONFLICT DO NOTHING and report a conflict by returning no row: a
    // unique violation would abort the whole transaction, while the contract only has the one
    // call throw (the work may catch that and go on, as it can on every other adapter).
    insertMerchant: `INSERT INTO ${t.merchants} (${MERCHANT_COLUMNS}) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING 1`,
    updateMerchant: `UPDATE ${t.merchants} SET ${assignments(MERCHANT_COLUMNS)} WHERE id = $1`,
    insertApiKey: `INSERT INTO ${t.apiKeys} (${API_KEY_COLUMNS}) VALUES (${placeholders(7)}) ON CONFLICT DO NOTHING RETURNING 1`,
    revokeApiKey: `UPDATE ${t.apiKeys} SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL`,
    // Sent deferred (a new invoice's id is random): a duplicate fails the transaction instead.
    insertInvoice: `INSERT INTO ${t.invoices} (${INVOICE_COLUMNS}) VALUES (${placeholders(30, INVOICE_CASTS)})`,
    lockInvoice: `SELECT ${INVOICE_COLUMNS} FROM ${t.invoices} WHERE id = $1 FOR UPDATE`,
    updateInvoice: `UPDATE ${t.invoices} SET ${assignments(INVOICE_COLUMNS, INVOICE_CASTS)} WHERE id = $1`,
    insertAddress: `INSERT INTO ${t.addresses} (${ADDRESS_COLUMNS}) VALUES (${placeholders(7)}) ON CONFLICT DO NOTHING RETURNING 1`,
    updateAddress: `UPDATE ${t.addresses} SET coin = $4, merchant_id = $5, invoice_id = $6, created_at = $7 WHERE mode = $1 AND network = $2 AND address = $3`,
    lockDeposit: `SELECT ${DEPOSIT_COLUMNS} FROM ${t.deposits} WHERE mode = $1 AND network = $2 AND tx_hash = $3 AND output_index = $4 FOR UPDATE`,
    insertDeposit: `INSERT INTO ${t.deposits} (${DEPOSIT_COLUMNS}) VALUES (${placeholders(20, DEPOSIT_CASTS)}) ON CONFLICT DO NOTHING RETURNING 1`,
    // A changed chain identity that collides with another deposit's is refused without an error.
    updateDeposit:
      `UPDATE ${t.deposits} SET ${assignments(DEPOSIT_COLUMNS, DEPOSIT_CASTS)} WHERE id = $1 AND NOT EXISTS ` +
      `(SELECT 1 FROM ${t.deposits} o WHERE o.mode = $3 AND o.network = $6 AND o.tx_hash = $8 AND o.output_index = $9 AND o.id <> $1)`,
    depositExists: `SELECT 1 FROM ${t.deposits} WHERE id = $1`,
    // A repeated report of the same transfer inserts nothing and is no error.
    insertUnlistedTransfer: `INSERT INTO ${t.unlisted} (${UNLISTED_COLUMNS}) VALUES (${placeholders(13, { 8: "::numeric" })}) ON CONFLICT DO NOTHING RETURNING 1`,
    listUnlistedTransfers: `SELECT ${UNLISTED_COLUMNS} FROM ${t.unlisted} WHERE mode = $1 ORDER BY seq`,
    insertPayout: `INSERT INTO ${t.payouts} (${PAYOUT_COLUMNS}) VALUES (${placeholders(15, PAYOUT_CASTS)}) ON CONFLICT DO NOTHING RETURNING 1`,
    lockPayout: `SELECT ${PAYOUT_COLUMNS} FROM ${t.payouts} WHERE id = $1 FOR UPDATE`,
    updatePayout: `UPDATE ${t.payouts} SET ${assignments(PAYOUT_COLUMNS, PAYOUT_CASTS)} WHERE id = $1`,
    insertExchange: `INSERT INTO ${t.exchanges} (${EXCHANGE_COLUMNS}) VALUES (${placeholders(11, EXCHANGE_CASTS)}) ON CONFLICT DO NOTHING RETURNING 1`,
    insertEvent: `INSERT INTO ${t.events} (${EVENT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6::json, $7)`,
    insertEvents:
      `INSERT INTO ${t.events} (${EVENT_COLUMNS}) SELECT id, merchant_id, mode, type, invoice_id, data::json, created_at ` +
      "FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[]) WITH ORDINALITY " +
      "AS e(id, merchant_id, mode, type, invoice_id, data, created_at, n) ORDER BY n",
    insertPaymentLink: `INSERT INTO ${t.paymentLinks} (${PAYMENT_LINK_COLUMNS}) VALUES (${placeholders(15, PAYMENT_LINK_CASTS)}) ON CONFLICT DO NOTHING RETURNING 1`,
    lockPaymentLink: `SELECT ${PAYMENT_LINK_COLUMNS} FROM ${t.paymentLinks} WHERE id = $1 FOR UPDATE`,
    updatePaymentLink: `UPDATE ${t.paymentLinks} SET ${assignments(PAYMENT_LINK_COLUMNS, PAYMENT_LINK_CASTS)} WHERE id = $1`,
    // Stores the record, or replaces one whose time is up or whose request's lease lapsed (on the
    // server's clock, the one every instance shares); a live one is left alone (and locked: ON
    // CONFLICT locks the row it conflicts with) and read back by the next statement. A key
    // stored before leases existed has none: it counts as lapsed.
    claimIdempotencyKey:
      `INSERT INTO ${t.idempotency} AS k (${IDEMPOTENCY_COLUMNS}, lease_until) VALUES (${placeholders(10)}, clock_timestamp() + $11 * interval '1 millisecond') ` +
      "ON CONFLICT ON CONSTRAINT idempotency_key_once DO UPDATE SET " +
      "request_hash = EXCLUDED.request_hash, state = EXCLUDED.state, response_status = EXCLUDED.response_status, " +
      "response_body = EXCLUDED.response_body, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at, " +
      "lease_token = EXCLUDED.lease_token, lease_until = EXCLUDED.lease_until " +
      "WHERE k.expires_at <= EXCLUDED.created_at OR (k.state = 'started' AND k.request_hash = EXCLUDED.request_hash " +
      "AND coalesce(k.lease_until, '-infinity') <= clock_timestamp()) RETURNING 1",
    getIdempotencyKey: `SELECT ${IDEMPOTENCY_COLUMNS} FROM ${t.idempotency} WHERE merchant_id = $1 AND mode = $2 AND key = $3`,
    completeIdempotencyKey:
      `UPDATE ${t.idempotency} SET state = 'completed', response_status = $5, response_body = $6, lease_until = NULL ` +
      "WHERE merchant_id = $1 AND mode = $2 AND key = $3 AND lease_token = $4 RETURNING 1",
    deleteIdempotencyKey: `DELETE FROM ${t.idempotency} WHERE merchant_id = $1 AND mode = $2 AND key = $3 AND lease_token = $4`,
    // The victims are picked once (a materialized CTE): a subquery under IN may be re-run per
    // row, and with SKIP LOCKED each run can pick others, deleting more than `limit`.
    deleteExpiredIdempotencyKeys:
      `WITH doomed AS MATERIALIZED (SELECT merchant_id, mode, key FROM ${t.idempotency} WHERE expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED) ` +
      `DELETE FROM ${t.idempotency} k USING doomed WHERE k.merchant_id = doomed.merchant_id AND k.mode = doomed.mode AND k.key = doomed.key`,
    setCursor: `INSERT INTO ${t.cursors} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
    // A row lock cannot hold a name nothing is stored under yet, so lockCursor takes a
    // transaction-scoped advisory lock on a 64-bit hash of the schema and the name (released by
    // COMMIT, ROLLBACK or a dropped connection). Two names whose hashes collide (or a key another
    // application locks) only make their transactions wait for each other: harmless. The schema
    // keeps services (or test runs) in schemas of their own on one database from waiting on each
    // other's names; NULL would lock nothing, hence the coalesce.
    lockCursorName: `SELECT 1 AS locked FROM pg_advisory_xact_lock(hashtextextended(${cursorLockSpace} || '.' || $1::text, ${CURSOR_LOCK_SEED}))`,
    insertWebhookEndpoint: `INSERT INTO ${t.endpoints} (${ENDPOINT_COLUMNS}) VALUES (${placeholders(10, ENDPOINT_CASTS)}) ON CONFLICT DO NOTHING RETURNING 1`,
    lockWebhookEndpoint: `SELECT ${ENDPOINT_COLUMNS} FROM ${t.endpoints} WHERE id = $1 FOR UPDATE`,
    updateWebhookEndpoint: `UPDATE ${t.endpoints} SET ${assignments(ENDPOINT_COLUMNS, ENDPOINT_CASTS)} WHERE id = $1`,
    deleteWebhookEndpoint: `DELETE FROM ${t.endpoints} WHERE id = $1`,
    insertWebhookDelivery: `INSERT INTO ${t.deliveries} (${DELIVERY_COLUMNS}) VALUES (${placeholders(15)}) ON CONFLICT DO NOTHING RETURNING 1`,
    insertWebhookDeliveries:
      `INSERT INTO ${t.deliveries} (${DELIVERY_COLUMNS}) SELECT ${DELIVERY_COLUMNS} FROM unnest(` +
      "$1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::int[], $10::bigint[], " +
      "$11::bigint[], $12::int[], $13::text[], $14::bigint[], $15::bigint[]) WITH ORDINALITY " +
      `AS d(${DELIVERY_COLUMNS}, n) ORDER BY n ON CONFLICT DO NOTHING RETURNING 1`,
    // The outbox's fan-out (see queueWebhookDeliveries): each event joined to the subscribed
    // endpoints of its scope, ids as webhookDeliveryId computes them, in event then endpoint order.
    // One event (the usual case) takes plain values; several, one array per column.
    queueWebhookDelivery:
      `INSERT INTO ${t.deliveries} (${DELIVERY_COLUMNS}) SELECT 'msg_' || left(encode(sha256(convert_to($1 || ':' || e.id, 'UTF8')), 'hex'), 32), ` +
      `$2, $3, e.id, $1, $4, $5, 'pending', 0, $6::bigint, NULL, NULL, NULL, $6::bigint, $6::bigint FROM ${t.endpoints} e ` +
      "WHERE e.merchant_id = $2 AND e.mode = $3 AND e.status = 'enabled' AND (e.events IS NULL OR e.events::jsonb ? $4) ORDER BY e.created_at, e.id",
    queueWebhookDeliveries:
      `INSERT INTO ${t.deliveries} (${DELIVERY_COLUMNS}) SELECT 'msg_' || left(encode(sha256(convert_to(v.id || ':' || e.id, 'UTF8')), 'hex'), 32), ` +
      "v.merchant_id, v.mode, e.id, v.id, v.type, v.payload, 'pending', 0, $6::bigint, NULL, NULL, NULL, $6::bigint, $6::bigint " +
      "FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS v(id, merchant_id, mode, type, payload, n) " +
      `JOIN ${t.endpoints} e ON e.merchant_id = v.merchant_id AND e.mode = v.mode ` +
      "WHERE e.status = 'enabled' AND (e.events IS NULL OR e.events::jsonb ? v.type) ORDER BY v.n, e.created_at, e.id",
    lockWebhookDelivery: `SELECT ${DELIVERY_COLUMNS} FROM ${t.deliveries} WHERE id = $1 FOR UPDATE`,
    updateWebhookDelivery: `UPDATE ${t.deliveries} SET ${assignments(DELIVERY_COLUMNS)} WHERE id = $1`,
    insertWebhookAttempt: `INSERT INTO ${t.attempts} (${ATTEMPT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)`,
    // One statement: the attempt goes in whatever happens; the delivery changes only while the
    // claim holds it ($7, its lease), or for a success.
    recordWebhookAttempt:
      `WITH logged AS (INSERT INTO ${t.attempts} (${ATTEMPT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)) ` +
      `UPDATE ${t.deliveries} SET status = $8, next_attempt_at = $9, lease_until = $10, last_status_code = $11, last_error = $12, updated_at = $13, ` +
      "attempts = attempts + 1 WHERE id = $2 AND ((status = 'pending' AND lease_until = $7) OR $8 = 'succeeded')",
    /**
     * Each delivery on its own schedule, at most $4 leased per endpoint. `endpoints` walks the
     * distinct endpoints with pending deliveries (a loose index scan: one probe per endpoint);
     * for each, `chosen` counts its live leases and takes its earliest due unleased deliveries
     * up to what is left ($4 minus the leases). `turns` ranks them within their merchant, by
     * rank within their endpoint, so a claim goes round merchants and endpoints rather than
     * emptying one backlog first. The due and lease tests are repeated on the locked row, so
     * PostgreSQL re-checks them against its newest version once the lock is held (a lease taken
     * meanwhile by another worker excludes it); SKIP LOCKED passes over rows another worker is
     * claiming right now instead of waiting. Two claimers see the same leases and pick from the
     * same earliest deliveries of an endpoint, so together they never lease more than $4.
     * The cost of a claim grows with the endpoints that have due deliveries (up to $4 rows each
     * are ranked), not with how many deliveries are queued.
     */
    claimWebhookDeliveries:
      `WITH RECURSIVE endpoints AS (` +
      `(SELECT endpoint_id FROM ${t.deliveries} WHERE status = 'pending' ORDER BY endpoint_id LIMIT 1) UNION ALL ` +
      `SELECT (SELECT p.endpoint_id FROM ${t.deliveries} p WHERE p.status = 'pending' AND p.endpoint_id > e.endpoint_id ORDER BY p.endpoint_id LIMIT 1) ` +
      "FROM endpoints e WHERE e.endpoint_id IS NOT NULL), " +
      `open AS (SELECT endpoint_id, $4 - (SELECT count(*) FROM ${t.deliveries} b WHERE b.endpoint_id = e.endpoint_id AND b.status = 'pending' AND b.lease_until > $1) AS free ` +
      "FROM endpoints e WHERE e.endpoint_id IS NOT NULL), " +
      // LIMIT $4 and then the rank test, rather than LIMIT free: a LIMIT the planner can read
      // keeps its row estimates (and so its choice of plan, and of JIT) right.
      "chosen AS (SELECT c.id, c.merchant_id, c.next_attempt_at, c.seq, c.rank FROM open o CROSS JOIN LATERAL (" +
      "SELECT x.id, x.merchant_id, x.next_attempt_at, x.seq, row_number() OVER (ORDER BY x.next_attempt_at, x.seq) AS rank FROM (" +
      `SELECT id, merchant_id, next_attempt_at, seq FROM ${t.deliveries} ` +
      "WHERE endpoint_id = o.endpoint_id AND status = 'pending' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until <= $1) " +
      "ORDER BY next_attempt_at, seq LIMIT $4::int) x) c WHERE o.free > 0 AND c.rank <= o.free), " +
      "turns AS (SELECT id, next_attempt_at, seq, row_number() OVER (PARTITION BY merchant_id ORDER BY rank, next_attempt_at, seq) AS turn FROM chosen), " +
      // The first in claim order, a few times the limit (rows other claimers hold right now are
      // skipped below): a LIMIT of a parameter tells the planner how few they are, so the rows
      // are fetched by primary key rather than by scanning the table.
      "picked AS (SELECT id, row_number() OVER (ORDER BY turn, next_attempt_at, seq) AS n FROM turns ORDER BY n LIMIT 4 * $2::int), " +
      `due AS MATERIALIZED (SELECT d.id, p.n AS turn FROM picked p JOIN ${t.deliveries} d ON d.id = p.id ` +
      "WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND (d.lease_until IS NULL OR d.lease_until <= $1) " +
      "ORDER BY p.n LIMIT $2 FOR UPDATE OF d SKIP LOCKED) " +
      `UPDATE ${t.deliveries} d SET lease_until = $3 FROM due WHERE d.id = due.id RETURNING ${DELIVERY_COLUMNS.split(",")
        .map((column) => `d.${column.trim()}`)
        .join(", ")}, d.seq, due.turn`,
    failPendingWebhookDeliveries:
      `UPDATE ${t.deliveries} SET status = 'failed', next_attempt_at = NULL, lease_until = NULL, last_error = $2, updated_at = $3 ` +
      "WHERE endpoint_id = $1 AND status = 'pending'",

    // Ledger (see ledger.ts)
    insertLedgerEntries:
      `INSERT INTO ${t.ledger} (${LEDGER_COLUMNS}) SELECT id, merchant_id, mode, asset, amount::numeric, kind, cause_key, created_at ` +
      "FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[]) WITH ORDINALITY " +
      "AS e(id, merchant_id, mode, asset, amount, kind, cause_key, created_at, n) ORDER BY n ON CONFLICT (cause_key) DO NOTHING RETURNING 1",
    insertLedgerEntry: `INSERT INTO ${t.ledger} (${LEDGER_COLUMNS}) VALUES ($1, $2, $3, $4, $5::numeric, $6, $7, $8) ON CONFLICT (cause_key) DO NOTHING RETURNING 1`,
    creditBalance:
      `INSERT INTO ${t.balances} AS b (${BALANCE_COLUMNS}) VALUES ($1, $2, $3, $4::numeric, $5) ` +
      "ON CONFLICT (merchant_id, mode, asset) DO UPDATE SET amount = b.amount + EXCLUDED.amount, updated_at = EXCLUDED.updated_at",
    // The check and the debit are one statement on a locked row: two debits queue on the row
    // lock and the second sees the first's result before it tests the balance.
    debitBalance:
      `UPDATE ${t.balances} SET amount = amount + $4::numeric, updated_at = $5 ` +
      "WHERE merchant_id = $1 AND mode = $2 AND asset = $3 AND amount + $4::numeric >= 0 RETURNING 1",
    // A reversal of a credit: applied whatever the balance, which may end below zero.
    overdrawBalance:
      `INSERT INTO ${t.balances} AS b (${BALANCE_COLUMNS}) VALUES ($1, $2, $3, $4::numeric, $5) ` +
      "ON CONFLICT (merchant_id, mode, asset) DO UPDATE SET amount = b.amount + EXCLUDED.amount, updated_at = EXCLUDED.updated_at",
  };
}

/** One filter of a paged list: its condition, with `?` standing for its parameter (if any). */
type Condition = { sql: string; value?: unknown };

/**
 * A newest-first page of `table` in one scope, with the filters given. Each combination of
 * filters gets its own statement text (a few dozen at most, each prepared once), so each plan
 * has only the conditions it uses and can walk the (merchant_id, mode, created_at DESC, id DESC)
 * index, rather than one generic plan full of `$n IS NULL OR ...`.
 */
export function pagedQuery(
  select: string,
  table: string,
  scope: { merchantId: string; mode: string },
  conditions: Condition[],
  page: { limit: number; after?: string | null },
): { text: string; params: unknown[] } {
  const params: unknown[] = [scope.merchantId, scope.mode, Math.max(0, page.limit)];
  const where = ["merchant_id = $1", "mode = $2"];
  for (const condition of conditions) {
    if ("value" in condition) {
      params.push(condition.value);
      where.push(condition.sql.replace("?", `$${params.length}`));
    } else {
      where.push(condition.sql);
    }
  }
  if (page.after) {
    params.push(page.after);
    // An `after` that names no record leaves the comparison null: an empty page.
    where.push(`(created_at, id) < (SELECT created_at, id FROM ${table} WHERE id = $${params.length})`);
  }
  return { text: `SELECT ${select} FROM ${table} WHERE ${where.join(" AND ")} ORDER BY created_at DESC, id DESC LIMIT $3`, params };
}

/** The statements of one adapter. */
export type Statements = ReturnType<typeof buildStatements>;
