/**
 * Text a request may carry but no storage should be given: the NUL character and UTF-16
 * surrogates without their pair. PostgreSQL refuses both (NUL in `text`, and either as a
 * `\u` escape in `json`/`jsonb`: "invalid input syntax for type json"), and UTF-8 cannot encode a
 * lone surrogate at all, so a driver would store U+FFFD instead of what was sent. Refusing them
 * for every request, whatever the storage, keeps the memory adapter and PostgreSQL answering
 * the same 400 instead of one storing what the other answers 500 to.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding NUL is this pattern's purpose.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True when `value` holds neither NUL nor an unpaired surrogate. */
export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value);
}

/** What the 400 says is wrong with such a field. */
export const UNSTORABLE_TEXT_MESSAGE = "must not contain a NUL character (\\u0000) or an unpaired UTF-16 surrogate";

/**
 * The first place in a request's parsed input where a string, or an object's key, is not
 * storable text, as "field.path: problem" (a key is named quoted, escaped as JSON); null when
 * every string is storable. Walks with a loop: metadata may nest deep.
 */
export function unstorableTextProblem(input: unknown): string | null {
  const stack: Array<{ value: unknown; path: string }> = [{ value: input, path: "" }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === "string") {
      if (!isStorableText(value)) return `${path || "the body"}: ${UNSTORABLE_TEXT_MESSAGE}`;
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
    for (const [key, child] of entries.reverse()) {
      if (!Array.isArray(value) && !isStorableText(key)) {
        return `${path || "the body"}: key ${JSON.stringify(key)} ${UNSTORABLE_TEXT_MESSAGE}`;
      }
      stack.push({ value: child, path: path ? `${path}.${key}` : key });
    }
  }
  return null;
}
