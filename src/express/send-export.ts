import { pipeline } from "node:stream/promises";
import type { Response } from "express";
import type { CsvExport } from "../core/exports/csv-export";

/** How a download ended. */
export interface ExportOutcome {
  /** True when the whole file went out; false when the client went away before the end. */
  completed: boolean;
  /** Records written to the response: all of them when completed; on an early end, those of the pages handed on before the client left. */
  rows: number;
}

/** Errors that mean the client closed the connection, not that anything failed on this side. */
const CLIENT_GONE = new Set(["ERR_STREAM_PREMATURE_CLOSE", "ECONNRESET", "EPIPE", "ERR_STREAM_DESTROYED"]);

/**
 * Answers a request with an export as a download: 200, `Content-Type: text/csv; charset=utf-8`,
 * `Content-Disposition: attachment; filename="<csv.filename>"`, `Cache-Control: no-store`, the CSV
 * streamed with backpressure (a page is read only as the client takes the bytes). A client that
 * disconnects stops the reads: the promise then resolves with `completed: false`, after the
 * last read in flight has ended. Mount it behind your own access control: an export holds every
 * merchant's records unless `merchantId` narrows it.
 *
 * When the first page cannot be read, it rejects before anything is sent, so the host's error
 * handler answers (500). A failure after the download began cuts the connection (the client sees
 * an incomplete download, never a file that looks whole) and rejects with the error.
 *
 * ```ts
 * app.get("/admin/exports/:kind", requireAdmin, async (req, res, next) => {
 *   let csv;
 *   try {
 *     csv = payments.admin.export({ kind: req.params.kind, from: String(req.query.from), to: String(req.query.to) });
 *   } catch (error) {
 *     return res.status(400).json({ error: (error as Error).message });
 *   }
 *   sendExport(res, csv).catch(next);
 * });
 * ```
 */
export async function sendExport(res: Response, csv: CsvExport): Promise<ExportOutcome> {
  const chunks = csv.stream[Symbol.asyncIterator]();
  // A client that hangs up ends the walk at once: a read in flight finishes, and none follows.
  const hangUp = () => {
    if (!res.writableFinished) csv.stream.destroy();
  };
  res.once("close", hangUp);
  try {
    // The header and the first page: a storage that cannot be read fails here, before any header is sent.
    const first = await chunks.next();
    res.status(200);
    res.attachment(csv.filename);
    res.setHeader("Content-Type", csv.contentType);
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("X-Content-Type-Options", "nosniff");
    await pipeline(async function* body() {
      if (!first.done) yield first.value;
      for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
    }, res);
    return { completed: true, rows: csv.rows };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string" && CLIENT_GONE.has(code)) return { completed: false, rows: csv.rows };
    throw error;
  } finally {
    res.off("close", hangUp);
    // Destroys the stream if it is still open (the client went away), which ends its reads;
    // resolving only once it closed means no read of this export is running any more.
    const closed = csv.stream.closed ? null : new Promise((resolve) => csv.stream.once("close", resolve));
    await chunks.return?.().catch(() => undefined);
    await closed;
  }
}
