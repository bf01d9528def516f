/** One call a logger received: its level, message and the details given with it. */
export interface LoggedCall {
  level: "warn" | "error";
  message: string;
  details: unknown[];
}

/** A logger keeping each call whole, for tests that read what the operator's log got. */
export function keepingLogger() {
  const calls: LoggedCall[] = [];
  return {
    calls,
    warn: (message: string, ...details: unknown[]) => void calls.push({ level: "warn", message, details }),
    error: (message: string, ...details: unknown[]) => void calls.push({ level: "error", message, details }),
  };
}
