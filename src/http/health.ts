import type { RequestHandler } from "express";
import type { HealthReport } from "../core/health/report";
import type { BackgroundStatus } from "../core/background";
import { asyncHandler } from "../express/async-handler";
import { sendJson } from "./send-json";

/**
 * The readiness check: the full health report as JSON, 200 while the service can take and credit
 * payments ("ok" or "degraded"), 503 when it cannot. It needs no API key: the report holds
 * nothing merchant-specific and no secret. Never cached.
 */
export function healthHandler(report: () => Promise<HealthReport>): RequestHandler {
  return asyncHandler(async (_req, res) => {
    const health = await report();
    res.setHeader("Cache-Control", "no-store");
    sendJson(res, health.status === "unhealthy" ? 503 : 200, health);
  });
}

/**
 * The liveness check: 200 while the router is open and its background loops end rounds; 503
 * once it is closed, or when no storage-only schedule (expiry, key cleanup) has ended a round for
 * `stallMs` while the timer runs (the loops are stuck: restarting helps). Chains are left out on
 * purpose: a node that is down is not cured by restarting the service, and readiness reports it.
 */
export function livenessHandler(background: () => BackgroundStatus, options: { stallMs: number; startedAt: number; now: () => number }): RequestHandler {
  return (_req, res) => {
    const status = background();
    const now = options.now();
    const storageOnly = status.schedules.filter((schedule) => !status.chains.some((chain) => chain.label === schedule.name));
    const lastRound = Math.max(options.startedAt, ...storageOnly.map((schedule) => schedule.lastRoundAt ?? 0));
    const stalled = status.running && now - lastRound > options.stallMs;
    res.setHeader("Cache-Control", "no-store");
    const alive = !status.closed && !stalled;
    sendJson(res, alive ? 200 : 503, { status: alive ? "alive" : status.closed ? "closed" : "stalled", lastRoundAt: new Date(lastRound).toISOString() });
  };
}
