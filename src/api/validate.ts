import type { z } from "zod";
import { PaymentError } from "../errors";

/**
 * Parses a request body with a schema, or throws a 400 that lists every problem with its
 * field path ("amount: must be at least 0; lifeTime: must be at most 1440 minutes").
 */
export function parseBody<Schema extends z.ZodType>(schema: Schema, body: unknown): z.output<Schema> {
  // reportInput: without it zod 4 leaves `input` out and a wrong type reads as "missing".
  const result = schema.safeParse(body ?? {}, { reportInput: true });
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const path = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") return `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((key) => `"${key}"`).join(", ")}`;
    if (issue.code === "invalid_type" && issue.input === undefined) return `${path}: is required`;
    if (issue.code === "invalid_type" && path === "") return "the body must be a JSON object";
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  throw new PaymentError("validation_error", `Invalid request: ${problems.join("; ")}.`);
}
