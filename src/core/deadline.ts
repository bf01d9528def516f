/**
 * Bounds on how long the service waits for work it does not control (a node's answer, a round
 * that calls one). A node that hangs (its process stopped, a network that drops packets) is
 * answered only by its adapter's own timeout, tens of seconds per call and more per round; the
 * service's requests, `tick()` and `close()` give up waiting long before that and say so. The
 * work itself goes on: what it finishes later is stored as usual.
 */

/** How long a request waits for a node in all (destination check, funding read, broadcast) before answering without it. */
export const REQUEST_NODE_WAIT_MS = 5_000;

/** How long `tick()` and `close()` wait for a round that calls a node (and `close()` for requests in flight). */
export const ROUND_WAIT_MS = 6_000;

/** What waiting for work within a deadline gave: its value, or nothing when the deadline came first. */
export type Waited<T> = { done: true; value: T } | { done: false };

/**
 * A deadline `ms` from now, shared by several waits (a request's node calls together). Its timer
 * never keeps the process alive. A wait that comes too late leaves its work running: a
 * rejection it has later is handled here (dropped), so it never becomes an unhandled one.
 */
export class Deadline {
  private readonly expired: Promise<{ done: false }>;

  constructor(readonly ms: number) {
    this.expired = new Promise((resolve) => setTimeout(() => resolve({ done: false }), ms).unref());
  }

  /** Waits for `work` until the deadline: its value, or `{ done: false }`; rejects when it rejects first. */
  wait<T>(work: Promise<T>): Promise<Waited<T>> {
    return Promise.race([work.then((value) => ({ done: true as const, value })), this.expired]);
  }
}
