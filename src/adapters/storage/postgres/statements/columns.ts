/**
 * One column table per record: each field of a record with its column and how its values
 * travel. The column lists, the placeholders, the row readers (row -> record) and the parameter
 * lists (record -> values) of the statements are all derived from it, so a new field is one
 * line here (and a migration adding the column).
 *
 * Amounts travel as decimal strings both ways (`numeric` in, text out), never through a JS
 * number. Drivers differ in how they hand back `bigint` columns (pg: string, PGlite: number or
 * BigInt) and `numeric` (string on both), so the readers accept any of those forms.
 */

/** A row as a driver answers it: values keyed by column name. */
export type Row = Record<string, unknown>;

/** How one column's values travel between a record and the database. */
export interface Codec<T> {
  /** The record's value, from what the driver answered. */
  read(value: unknown): T;
  /** The parameter sent for the record's value. */
  write(value: T): unknown;
  /** The cast a placeholder of this column needs (`::numeric` for an amount sent as text), or "". */
  readonly cast: string;
  /** The array type its values travel in when a statement takes one array per column (`unnest`). */
  readonly arrayType: string;
}

const same = <T>(value: T): unknown => value;
const isNull = (value: unknown): value is null | undefined => value === null || value === undefined;

/** A column that may be NULL: null both ways, the codec's form otherwise. */
function nullable<T>(codec: Codec<T>): Codec<T | null> {
  return {
    read: (value) => (isNull(value) ? null : codec.read(value)),
    write: (value) => (value === null ? null : codec.write(value)),
    cast: codec.cast,
    arrayType: codec.arrayType,
  };
}

/** `text` as it comes: a string, or a member of a string union (a mode, a status) as the code stored it. */
const text: Codec<string> = { read: (value) => value as string, write: same, cast: "", arrayType: "text[]" };
/** Nullable `text`. */
export const textOrNull: Codec<string | null> = nullable(text);

/** An amount: `numeric` (whole smallest units), a bigint in the record, sent as its decimal string. */
export const numeric: Codec<bigint> = {
  read: (value) => BigInt(value as string | number | bigint),
  write: (value) => value.toString(),
  cast: "::numeric",
  arrayType: "text[]",
};
/** A nullable amount. */
export const numericOrNull: Codec<bigint | null> = nullable(numeric);

const asNumber = (value: unknown): number => (typeof value === "number" ? value : Number(value));

/** An `integer` column (a count, a status code). */
export const int: Codec<number> = { read: asNumber, write: same, cast: "", arrayType: "int[]" };
/** A nullable `integer`. */
export const intOrNull: Codec<number | null> = nullable(int);

/** A `bigint` column held as a JS number (safe integers by construction): a block height. */
export const bigintNumber: Codec<number> = { read: asNumber, write: same, cast: "", arrayType: "bigint[]" };

/** A time: epoch milliseconds in a `bigint` column. */
export const epochMs: Codec<number> = bigintNumber;
/** A nullable time. */
export const epochMsOrNull: Codec<number | null> = nullable(epochMs);

/** A `boolean` column. */
export const bool: Codec<boolean> = { read: (value) => Boolean(value), write: same, cast: "", arrayType: "boolean[]" };

/**
 * A `json` column: drivers parse it (a driver set to hand back text gets it parsed here); it is
 * sent as its JSON text, cast in the statement.
 */
export function json<T>(): Codec<T> {
  return {
    read: (value) => (typeof value === "string" ? (JSON.parse(value) as T) : (value as T)),
    write: (value) => (isNull(value) ? null : JSON.stringify(value)),
    cast: "::json",
    arrayType: "text[]",
  };
}
/** A nullable `json` column. */
export function jsonOrNull<T>(): Codec<T | null> {
  return nullable(json<T>());
}

/** A record field's column. */
export interface Column<T> {
  /** The column's name in the table. */
  readonly name: string;
  /** How the field's values travel. */
  readonly codec: Codec<T>;
}

/** A column: `text` (taken as it comes, typed as the field) unless a codec says otherwise. */
export function col<T extends string | null = string>(name: string): Column<T>;
export function col<T>(name: string, codec: Codec<T>): Column<T>;
export function col(name: string, codec: Codec<unknown> = text): Column<unknown> {
  return { name, codec };
}

/** Every field of a record, each with its column. */
export type ColumnsOf<R> = { [K in keyof R]-?: Column<R[K]> };

/** A record's column table and what the statements use of it. */
export interface ColumnTable<R> {
  /** The number of columns, which is also the number of `params`. */
  readonly size: number;
  /** `id, merchant_id, ...`: every column, in table order. */
  readonly list: string;
  /** `$1, $2, $3::numeric, ...`: a placeholder per column, in `params` order, cast where the column needs it. */
  readonly values: string;
  /** `merchant_id = $2, ...`: each column outside the key set from its parameter. */
  readonly assignments: string;
  /** `merchant_id = EXCLUDED.merchant_id, ...`: each column outside the key set from the row an upsert was refused. */
  readonly replacements: string;
  /** `id = $1`, or `mode = $1 AND network = $2 AND address = $3` for a key of several columns. */
  readonly keyMatch: string;
  /** Each field's placeholder (`$n`, uncast) in `params`: for statements that use a few by name. */
  readonly param: Readonly<Record<keyof R, string>>;
  /** `$1::text[], $2::bigint[], ...`: one array parameter per column, for an `unnest`. */
  readonly arrays: string;
  /** `id, ..., amount::numeric, ...`: the columns of an `unnest` of `arrays`, cast to their column types. */
  readonly unnested: string;
  /** `d.id, d.merchant_id, ...`: the column list qualified by a table alias. */
  readonly qualified: (alias: string) => string;
  /** `m.name AS merchant_name, ...`: the columns of a joined table, renamed apart from the others (see `readRenamed`). */
  readonly renamed: (alias: string, prefix: string, except?: ReadonlyArray<keyof R & string>) => string;
  /** The record of a row (a function of the row alone: it can be handed to `rows.map`). */
  readonly read: (row: Row) => R;
  /** The record of a row whose statement renamed its columns `<prefix><column>` (see `renamed`). */
  readonly readRenamed: (row: Row, prefix: string) => R;
  /** The parameters of a record, in `list` order. */
  readonly params: (record: R) => unknown[];
  /** One array per column (see `arrays`) holding the records' values. */
  readonly paramArrays: (records: readonly R[]) => unknown[];
}

/** The column table of a record; `key` (default `id`) names the fields an UPDATE matches rows on. */
export function columns<R>(fields: ColumnsOf<R>, key: ReadonlyArray<keyof R & string> = ["id" as keyof R & string]): ColumnTable<R> {
  const entries = (Object.keys(fields) as Array<keyof R & string>).map((field, i) => ({ field, ...fields[field], at: `$${i + 1}` }));
  for (const field of key) if (!(field in fields)) throw new Error(`columns: the key field ${field} has no column`);
  const keyed = entries.filter((entry) => key.includes(entry.field));
  const rest = entries.filter((entry) => !key.includes(entry.field));
  // Flat arrays for the per-row work (readers run for every row a statement answers).
  const size = entries.length;
  const fieldOf = entries.map((entry) => entry.field);
  const nameOf = entries.map((entry) => entry.name);
  const readers = entries.map((entry) => entry.codec.read);
  const writers = entries.map((entry) => entry.codec.write);
  return {
    size,
    list: entries.map((entry) => entry.name).join(", "),
    values: entries.map((entry) => `${entry.at}${entry.codec.cast}`).join(", "),
    assignments: rest.map((entry) => `${entry.name} = ${entry.at}${entry.codec.cast}`).join(", "),
    replacements: rest.map((entry) => `${entry.name} = EXCLUDED.${entry.name}`).join(", "),
    keyMatch: keyed.map((entry) => `${entry.name} = ${entry.at}`).join(" AND "),
    param: Object.fromEntries(entries.map((entry) => [entry.field, entry.at])) as Record<keyof R, string>,
    arrays: entries.map((entry) => `${entry.at}::${entry.codec.arrayType}`).join(", "),
    unnested: entries.map((entry) => `${entry.name}${entry.codec.cast}`).join(", "),
    qualified: (alias) => entries.map((entry) => `${alias}.${entry.name}`).join(", "),
    renamed: (alias, prefix, except = []) =>
      entries
        .filter((entry) => !except.includes(entry.field))
        .map((entry) => `${alias}.${entry.name} AS ${prefix}${entry.name}`)
        .join(", "),
    read: (row) => {
      const record: Record<string, unknown> = {};
      for (let i = 0; i < size; i++) record[fieldOf[i]!] = readers[i]!(row[nameOf[i]!]);
      return record as R;
    },
    readRenamed: (row, prefix) => {
      const record: Record<string, unknown> = {};
      for (let i = 0; i < size; i++) record[fieldOf[i]!] = readers[i]!(row[prefix + nameOf[i]!]);
      return record as R;
    },
    params: (record) => {
      const params = new Array<unknown>(size);
      for (let i = 0; i < size; i++) params[i] = writers[i]!(record[fieldOf[i]!]);
      return params;
    },
    paramArrays: (records) => entries.map(({ field, codec }) => records.map((record) => codec.write(record[field]))),
  };
}

/**
 * Placeholders, by name, for the parameters a statement takes after a record's (`$<size + 1>`
 * onwards): the statement and the code building its parameters both list `names` in one order.
 */
export function after<N extends string>(table: { readonly size: number }, names: readonly N[]): Readonly<Record<N, string>> {
  return Object.fromEntries(names.map((name, i) => [name, `$${table.size + i + 1}`])) as Record<N, string>;
}
