/**
 * Reads of named values (cursors): short strings under a name of the caller's choosing, such
 * as how far a chain's deposit feed was read. Not scoped: names are global to the storage, so
 * callers put the mode (and anything else) in the name.
 */
export interface CursorReads {
  /** The value stored under `key` by `setCursor`, or null. */
  getCursor(key: string): Promise<string | null>;
}

/**
 * Named values, as a transaction sees them, and a lock on a name: what chain adapters keep
 * their progress, nonce counters and signed payouts under, across instances.
 */
export interface CursorStore extends CursorReads {
  /** Stores a named value, replacing any earlier one. */
  setCursor(key: string, value: string): Promise<void>;
  /**
   * Returns the named value (null when none is stored) and holds the name until the
   * transaction ends: a second transaction locking the same name, stored or not yet, waits
   * for this one (and then sees what it wrote). Chain adapters serialize their nonce counter
   * and signed payouts on it across instances. Locking a name the transaction holds already
   * does not wait; a rollback releases the name and writes nothing.
   */
  lockCursor(key: string): Promise<string | null>;
}
