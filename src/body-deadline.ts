import type { IncomingMessage, ServerResponse } from "node:http";

/** How long a request body may take to arrive in full, unless configured otherwise. */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/** The reason `readWithinDeadline` rejects with when the body did not arrive in time. */
export class BodyTimeoutError extends Error {
  override name = "BodyTimeoutError";
  constructor(readonly timeoutMs: number) {
    super(`The request body did not arrive in full within ${formatMs(timeoutMs)}; send the whole body (as many bytes as Content-Length says) without pausing.`);
  }
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/**
 * Waits for `read` (a reader of the request's body) for at most `timeoutMs`. A body that never
 * ends, or is shorter than its Content-Length, would otherwise hold the request (and its
 * socket) until the server's own timeout, 300 s by default in Node: past the deadline this
 * rejects with a BodyTimeoutError, and marks the answer `Connection: close` so that the socket,
 * with whatever the client still sends on it, is closed once the caller has answered. The
 * reader is left to fail on the closed socket; what it does after the deadline is ignored.
 */
export async function readWithinDeadline<T>(req: IncomingMessage, res: ServerResponse, timeoutMs: number, read: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      if (!res.headersSent) res.setHeader("Connection", "close");
      req.pause(); // stop buffering what is still coming
      reject(new BodyTimeoutError(timeoutMs));
    }, timeoutMs);
  });
  try {
    return await Promise.race([read, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
