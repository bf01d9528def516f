import { PriceSourceError, type PriceSource, type SourcePrice, type SourceRequest } from "./sources/types";

/**
 * One price source read on its own schedule: its own timer, its own read in flight and its own
 * timeout. A source that is slow or hangs therefore delays only itself: the others are read
 * every `everyMs` whatever it does, so their prices stay fresh.
 */

/** What a schedule reports, and what it asks each read for. */
export interface ScheduleHandlers {
  /** The request of one read, but its signal and `missing` (the schedule gives each read its own). */
  request(): Omit<SourceRequest, "signal" | "missing">;
  /** The source answered, after `seconds`; `missing` holds the bases it reported it could not price, with why. */
  answered(prices: SourcePrice[], seconds: number, missing: ReadonlyMap<string, string>): void;
  /** The source failed, timed out or threw, after `seconds`. */
  failed(error: unknown, seconds: number): void;
  /** A read settled (after `answered` or `failed`): time to look at the prices again. */
  settled(): void;
}

/** A source's reading schedule. */
export interface SourceSchedule {
  /** Reads the source now, or joins the read under way; resolves when it settled (never rejects). */
  read(): Promise<void>;
  /** From now on, reads again `everyMs` after each read settles. */
  start(): void;
  /** Stops the schedule and abandons a read under way (nothing is reported of it). */
  stop(): Promise<void>;
}

/**
 * Reads `source` on its own schedule. Each read ends after the source's `timeoutMs` even when the
 * source ignores its signal, and the next is `everyMs` after it settles: reads of one source
 * never overlap, and never wait for another source.
 */
export function scheduleSource(source: PriceSource, everyMs: number, handlers: ScheduleHandlers): SourceSchedule {
  let timer: NodeJS.Timeout | null = null;
  let inFlight: Promise<void> | null = null;
  let running = false;
  let closed = false;
  let abandon: AbortController | null = null;

  const readOnce = async (): Promise<void> => {
    const controller = new AbortController();
    abandon = controller;
    // setTimeout rather than AbortSignal.timeout: an injected or fake clock drives it too.
    const timeout = setTimeout(() => controller.abort(new PriceSourceError(source.name, `no answer within ${source.timeoutMs} ms`)), source.timeoutMs);
    timeout.unref?.();
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    // This read's own: what a read that fails or is abandoned reported is dropped with it.
    const missing = new Map<string, string>();
    const request: SourceRequest = {
      ...handlers.request(),
      signal: controller.signal,
      missing: (base, reason) => void missing.set(base, String(reason).slice(0, 200)),
    };
    try {
      const prices = await Promise.race([source.fetch(request), rejectOnAbort(controller.signal)]);
      if (abandon === controller) handlers.answered(prices, seconds(), missing);
    } catch (error) {
      if (abandon === controller) handlers.failed(error, seconds());
    } finally {
      clearTimeout(timeout);
      if (abandon === controller) abandon = null;
    }
  };

  const schedule = (): void => {
    if (!running) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      void read();
    }, everyMs);
    timer.unref?.();
  };

  const read = (): Promise<void> =>
    (inFlight ??= readOnce().finally(() => {
      inFlight = null;
      if (!closed) handlers.settled();
      schedule();
    }));

  return {
    read,
    start() {
      if (running) return;
      running = true;
      closed = false;
      // A read under way schedules the next when it settles.
      if (!inFlight) schedule();
    },
    async stop() {
      running = false;
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      const reading = inFlight;
      const controller = abandon;
      abandon = null;
      controller?.abort(new PriceSourceError(source.name, "the rates adapter was closed"));
      await reading;
    },
  };
}

/** A promise that rejects with the signal's reason when it is aborted: a source that ignores its signal cannot hold a read. */
function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}
