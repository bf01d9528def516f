/**
 * Statement text written as an indented multi-line template: the common indentation of its lines
 * and the blank lines around it are taken off, so what reaches the server (and its logs and
 * `pg_stat_activity`) reads as written. Only the template's own text is re-indented: an
 * interpolated value (a table name, a column list) is inserted as it is.
 */
export function sql(strings: TemplateStringsArray, ...values: ReadonlyArray<string | number>): string {
  let indent = Number.POSITIVE_INFINITY;
  for (const part of strings) {
    for (const match of part.matchAll(/\n( *)(?=[^\s])/g)) indent = Math.min(indent, match[1]!.length);
  }
  const margin = indent === Number.POSITIVE_INFINITY ? null : new RegExp(`\\n {0,${indent}}`, "g");
  let text = "";
  for (const [i, part] of strings.entries()) {
    text += margin ? part.replace(margin, "\n") : part;
    if (i < values.length) text += String(values[i]);
  }
  return text.trim();
}
