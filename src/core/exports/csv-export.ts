import { Readable } from "node:stream";
import { stringify } from "csv-stringify/sync";
import type { CurrencyCatalog } from "../../currencies";
import { type ExportCursor, type ExportQuery, type ExportReads, requireStoragePart } from "../ports/storage/index";
import { EXPORT_KINDS, type ExportKind, type ExportKindSpec } from "./kinds";
import { type CheckedExportRequest, checkExportRequest } from "./request";

/** How many records one storage read of an export fetches. */
export const EXPORT_PAGE_SIZE = 500;

/** The content type of every export. */
export const CSV_CONTENT_TYPE = "text/csv; charset=utf-8";

/**
 * The CSV dialect of every export: RFC 4180 (comma, double quotes, CRLF after every row, a field
 * quoted when it holds a comma, quote or line break, whatever line break it is), and the formula
 * guard: a cell beginning with = + - @, a tab or a carriage return (or the full-width = + - @) gets
 * a leading apostrophe, so a spreadsheet shows it as text instead of running it.
 */
const DIALECT = { record_delimiter: "\r\n", quote_record_delimiter: true, escape_formulas: true } as const;

/** An export on its way: the CSV stream and what a download needs to name it. */
export interface CsvExport {
  /** The kind exported. */
  readonly kind: ExportKind;
  /** A file name for the download: `<kind>_<from>_<to>[_<merchantId>][_<mode>].csv`. */
  readonly filename: string;
  /** "text/csv; charset=utf-8". */
  readonly contentType: string;
  /** The header row, in order. */
  readonly columns: readonly string[];
  /**
   * The CSV as UTF-8 bytes: the header row, then one row per record, oldest first. Reads start
   * when it is first read, one page of records at a time, each page when the reader wants more
   * (backpressure), so memory holds about a page whatever the export's size. Destroying it (the
   * client went away) stops the reads; a storage failure errors it.
   */
  readonly stream: Readable;
  /**
   * Records the stream has passed on so far: every record once it ended; after an early end,
   * those of the pages its reader took (a client that hung up may have received fewer).
   */
  readonly rows: number;
}

/**
 * What an export reads: the storage and the currency list (for decimals). A storage without the
 * `exports` part (`ExportReads`) is refused with `storage_feature_unavailable` before anything is read.
 */
export interface ExportContext {
  storage: Partial<ExportReads>;
  currencies: CurrencyCatalog;
}

/** A merchant id as it may appear in a file name; others are left out of it. */
const SAFE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Starts an export: checks the request (a TypeError for a bad one, before anything is read) and
 * returns the stream, which reads nothing until it is consumed. `pageSize` is the records per
 * storage read.
 */
export function createCsvExport(context: ExportContext, request: unknown, pageSize: number = EXPORT_PAGE_SIZE): CsvExport {
  const storage = requireStoragePart(context.storage, "exports", "Exports");
  const checked = checkExportRequest(request);
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new TypeError(`export: pageSize must be a whole number >= 1, not ${pageSize}`);
  const spec = EXPORT_KINDS[checked.kind];
  const counter = { rows: 0 };
  const stream = Readable.from(chunks({ storage, currencies: context.currencies }, spec, checked, pageSize, counter), { objectMode: false });
  const parts = [checked.kind, checked.fromDay, checked.toDay];
  if (checked.merchantId !== undefined && SAFE_NAME.test(checked.merchantId)) parts.push(checked.merchantId);
  if (checked.mode !== undefined) parts.push(checked.mode);
  return {
    kind: checked.kind,
    filename: `${parts.join("_")}.csv`,
    contentType: CSV_CONTENT_TYPE,
    columns: spec.columns,
    stream,
    get rows() {
      return counter.rows;
    },
  };
}

/**
 * The CSV text, one chunk per page of records; the first chunk is the header with the first
 * page, so a storage that cannot be read fails the first read of the stream, before a byte of
 * the download exists. A page is read only when the stream wants data, and a page's chunk
 * outgrows the stream's buffer, so at most one page waits in it.
 */
async function* chunks(
  context: { storage: ExportReads; currencies: CurrencyCatalog },
  spec: ExportKindSpec,
  request: CheckedExportRequest,
  pageSize: number,
  counter: { rows: number },
) {
  const query: ExportQuery = { from: request.from, to: request.to, merchantId: request.merchantId, mode: request.mode, limit: pageSize };
  let header = stringify([spec.columns as string[]], DIALECT);
  let after: ExportCursor | null = null;
  for (;;) {
    const page = await spec.page(context.storage, context.currencies, { ...query, after });
    const text =
      page.length > 0
        ? stringify(
            page.map((row) => row.cells),
            DIALECT,
          )
        : "";
    if (header + text !== "") yield header + text;
    // Counted once taken: a stream destroyed meanwhile ends the walk at the yield.
    counter.rows += page.length;
    header = "";
    if (page.length < pageSize) return;
    after = page[page.length - 1]!.cursor;
  }
}
