/**
 * A FIFO mutex: whoever asked first goes next. The memory adapter runs its transactions one at a
 * time behind one; PGlite, with its single connection, queues everything behind one per instance.
 */
export class Mutex {
  private held = false;
  private readonly waiters: Array<() => void> = [];

  /** True when nobody holds it (so a caller can skip queueing for a read). */
  get idle(): boolean {
    return !this.held;
  }

  acquire(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    if (next)
      next(); // ownership passes straight on, so nobody can cut in between
    else this.held = false;
  }

  /** Runs `work` holding the mutex. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }
}
