/**
 * Watches API requests: `begin` when one arrives, `route` with its template (`/v1/payments/:id`,
 * never the path itself, so labels stay bounded) once it is matched, `end` with the status sent.
 * Defined here, by what the observability offers; the HTTP shell calls it.
 */
export interface RequestObserver {
  begin(method: string): RequestObservation;
}

/** One request being watched (see {@link RequestObserver}). */
export interface RequestObservation {
  route(template: string): void;
  end(status: number): void;
}
