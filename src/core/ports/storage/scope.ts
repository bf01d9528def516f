import type { Mode } from "../../merchants/records";

/**
 * Who is asking: every merchant-facing read is confined to one merchant in one mode. A read
 * given a scope answers a record of another merchant, or of the other mode, as "not found"
 * (null, or left out of a list), exactly as if it did not exist, so that an id guessed or
 * leaked from elsewhere reveals nothing.
 */
export interface Scope {
  merchantId: string;
  mode: Mode;
}

/**
 * One page of a newest-first list. `after` is the id of the last record of the previous page:
 * the page holds the records that come after it in that order (records inserted since do not
 * shift the pages, so walking them sees each record once). An `after` that names no stored
 * record gives an empty page.
 */
export interface PageQuery {
  limit: number;
  after?: string | null;
}
