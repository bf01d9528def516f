import type { CursorReads, CursorStore } from "../../../core/ports/storage/index";
import { type Run, setIn, type Tables, type Undo, type Writes } from "./tables";

/** Named values: reads. */
export function cursorReads(t: Tables, run: Run): CursorReads {
  return {
    getCursor: (key) => run("getCursor", () => t.cursors.get(key) ?? null),
  };
}

/** Named values: writes, and the lock on a name. */
export function cursorWrites(t: Tables, run: Run, undo: Undo[]): Writes<CursorStore, CursorReads> {
  return {
    setCursor: (key, value) => run("setCursor", () => setIn(t.cursors, key, value, undo)),
    // Transactions run one at a time, so the name is held until this one ends, stored or not.
    lockCursor: (key) => run("lockCursor", () => t.cursors.get(key) ?? null),
  };
}
