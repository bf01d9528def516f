import type * as OpenTelemetry from "@opentelemetry/api";
import type { SpanAttributes } from "../core/ports/telemetry";
import type { RequestObservation } from "./request-observer";
import { loadOptional } from "./optional";

/** The tracer name spans are recorded under (the instrumentation scope). */
export const TRACER_NAME = "express-crypto-pay";

/** Spans through the host's OpenTelemetry setup: a no-op until it registers a provider. */
export interface Tracing {
  span<T>(name: string, attributes: SpanAttributes, work: () => Promise<T>): Promise<T>;
  /** The span of one API request, named by its route template once that is known. */
  request(method: string): RequestObservation;
}

/**
 * The tracing of a router, or null when @opentelemetry/api is not installed. The tracer is
 * asked for per span, not once, so a provider the host registers after creating the router
 * (a common order in tests and in lazy setups) still gets every span.
 */
export function openTracing(load: (name: string) => unknown = loadOptional): Tracing | null {
  const api = load("@opentelemetry/api") as typeof OpenTelemetry | null;
  if (!api) return null;
  const tracer = () => api.trace.getTracer(TRACER_NAME);
  return {
    span: (name, attributes, work) =>
      tracer().startActiveSpan(name, { attributes }, async (span) => {
        try {
          return await work();
        } catch (error) {
          span.recordException(error instanceof Error ? error : String(error));
          span.setStatus({ code: api.SpanStatusCode.ERROR });
          throw error;
        } finally {
          span.end();
        }
      }),
    request: (method) => {
      const span = tracer().startSpan(method, { kind: api.SpanKind.SERVER, attributes: { "http.request.method": method } });
      return {
        route: (template) => {
          span.updateName(`${method} ${template}`);
          span.setAttribute("http.route", template);
        },
        end: (status) => {
          span.setAttribute("http.response.status_code", status);
          if (status >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR });
          span.end();
        },
      };
    },
  };
}
