/**
 * Conditions worth a log line (a source's prices gone stale, a source far from the others, a
 * stablecoin off its peg): each is logged once when it begins, and again only after it ended and
 * began anew, however often the prices are looked at in between.
 */
export class Notices {
  private readonly active = new Set<string>();

  constructor(private readonly log: (message: string) => void) {}

  /**
   * Logs the message of each condition of `current` (key -> message) that was not already on;
   * forgets those no longer on, logging `ended(key)` for each when it gives a message.
   */
  update(current: ReadonlyMap<string, string>, ended?: (key: string) => string | null): void {
    for (const [key, message] of current) {
      if (this.active.has(key)) continue;
      this.active.add(key);
      this.log(message);
    }
    for (const key of [...this.active]) {
      if (current.has(key)) continue;
      this.active.delete(key);
      const message = ended?.(key);
      if (message) this.log(message);
    }
  }
}
