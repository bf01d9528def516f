/**
 * A logger with the levels the service uses; `console` fits. `info` (one line per credited
 * deposit and other routine money movements) is optional: a logger without it gets warnings
 * and errors only.
 */
export interface Logger {
  info?(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}
