import { PaymentError } from "../errors";

/** The answer to a request that comes once `close()` began: nothing of it was done. */
export function closingError(): PaymentError {
  return new PaymentError(
    "service_closing",
    "The payment service is shutting down: nothing was done for this request. Send it again: another instance, or this one restarted, will answer it.",
  );
}

/**
 * The service's doors, for a clean stop. Every request it answers (its API over HTTP, its pages,
 * the dashboard, in-process calls) is counted from when it comes in until it is answered;
 * `close()` shuts the doors, then waits for the count to reach zero before the storage closes.
 * So an answer given before is never a 500 of a closed storage (a 2xx means it is stored), and
 * a request that comes after is refused with 503 (50321) with nothing done. Transport-neutral:
 * a visitor is any object (the HTTP shell uses its request), counted once however many of the
 * service's routers it passes.
 */
export class Doors {
  private open = true;
  private inFlight = 0;
  private readonly entered = new WeakSet<object>();
  private drainedWaiters: Array<() => void> = [];

  /** Counts `visitor` in: "entered", or "inside" when it was already, or "closed" (not counted) once closing. */
  enter(visitor: object): "entered" | "inside" | "closed" {
    if (this.entered.has(visitor)) return "inside";
    if (!this.open) return "closed";
    this.entered.add(visitor);
    this.inFlight++;
    return "entered";
  }

  /** Counts `visitor` out (nothing when it was not in). */
  leave(visitor: object): void {
    if (!this.entered.delete(visitor)) return;
    this.done();
  }

  /** Runs an in-process call through the doors: counted while it runs, refused with 503 (50321) once closing. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (!this.open) throw closingError();
    this.inFlight++;
    try {
      return await work();
    } finally {
      this.done();
    }
  }

  /** Shuts the doors: every request from now on is refused; those in flight go on. */
  close(): void {
    this.open = false;
  }

  /** Resolves when no request is in flight any more. */
  drained(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainedWaiters.push(resolve));
  }

  private done(): void {
    this.inFlight--;
    if (this.inFlight > 0) return;
    const waiters = this.drainedWaiters;
    this.drainedWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
