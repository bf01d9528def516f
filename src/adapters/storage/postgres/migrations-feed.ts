/**
 * Steps of the feed. Step 15: the event log in commit order. Each event records the id of the transaction that
 * wrote it (`pg_current_xact_id()`, a 64-bit xid8 that never wraps), and the log is read in
 * (txid, seq) order only below the oldest transaction still running
 * (`pg_snapshot_xmin(pg_current_snapshot())`): every event under that horizon has committed (or
 * never will), and every event written later has a txid at or above it. So a reader paging
 * forward by position never passes an event whose transaction commits after a later one's (see
 * docs/storage.md, "The event log"). Events of earlier versions keep txid 0: they stay in their
 * seq order, before every later event.
 */
// Typed by shape, not by importing `Migration`: migrations.ts imports this file.
export const FEED_MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  {
    version: 15,
    name: "event log: the writing transaction's id, read in commit-safe order below the oldest running transaction",
    sql: `
ALTER TABLE events ADD COLUMN txid xid8 NOT NULL DEFAULT '0';
ALTER TABLE events ALTER COLUMN txid SET DEFAULT pg_current_xact_id();
CREATE INDEX events_by_commit ON events (merchant_id, mode, txid, seq);
`,
  },
  {
    version: 16,
    name: "webhook endpoints: the outcome of each endpoint's latest attempt, so that one success counts it healthy again",
    // One row per endpoint, replaced by each attempt recorded later than the one it holds (by
    // the outcome's time): the backlog counts an endpoint as failing only while its latest
    // attempt failed, not until its older deliveries' retries have run.
    sql: `
CREATE TABLE webhook_endpoint_outcomes (
  endpoint_id text COLLATE "C" PRIMARY KEY,
  at bigint NOT NULL,
  succeeded boolean NOT NULL
);
`,
  },
  {
    version: 17,
    name: "deposits: the block each was last reported in, so that a replayed block range changes nothing",
    // Null for deposits recorded before, and while a transfer is in no block: a drop report is
    // then applied as it comes, as before this step.
    sql: `
ALTER TABLE deposits ADD COLUMN block_hash text;
`,
  },
];
