import type { ApiTables } from "../api/tables";
import type { CoreContext } from "../core/context";
import type { BackgroundStatus } from "../core/background";
import type { RequestObserver } from "../ops/request-observer";
import type { DashboardBackend } from "./dashboard-backend";
import type { Doors } from "./doors";
import type { PaymentRouterOptions } from "./options";
import type { PaymentService } from "./payment-service";

/**
 * What a transport mounted on a service works with, beyond the service's public face: the core
 * context and options for the pages, the route tables, the doors, and what the dashboard reads.
 * Kept off the public object (a host never needs it), found by `partsOf`.
 */
export interface ServiceParts {
  context: CoreContext;
  /** The options the service was created with, checked. */
  settings: PaymentRouterOptions;
  tables: ApiTables;
  doors: Doors;
  /** Watches API requests (metrics, traces); absent when both are off. */
  observer: RequestObserver | undefined;
  /** Read by the liveness check: the loops' state, how long they may go without a round, and since when. */
  liveness: { status: () => BackgroundStatus; stallMs: number; startedAt: number; now: () => number };
  /** What the dashboard reads and acts through: the /v1 resources in process, the admin and the health report. */
  dashboard: DashboardBackend;
}

const registry = new WeakMap<object, ServiceParts>();

/** Files the parts of a service `createPaymentService` made. */
export function registerParts(service: PaymentService, parts: ServiceParts): void {
  registry.set(service, parts);
}

/** Whether `value` is a service `createPaymentService` made (and not an options object). */
export function isPaymentService(value: unknown): value is PaymentService {
  return typeof value === "object" && value !== null && registry.has(value);
}

/** The parts of a service `createPaymentService` made; a TypeError for anything else. */
export function partsOf(service: PaymentService): ServiceParts {
  const parts = registry.get(service);
  if (!parts) throw new TypeError("createPaymentRouter: pass options, or a service that createPaymentService made");
  return parts;
}
