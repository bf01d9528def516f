import type { WebhookEndpointRecord } from "../../../core/webhooks/records";
import type { Scope, WebhookEndpointReads, WebhookEndpointStore } from "../../../core/ports/storage/index";
import { copyEndpoint } from "./copy";
import { compareCreated, inScope, pick, scoped } from "./query";
import { conflict, deleteIn, missing, type Run, setIn, type Tables, type Undo, type Writes } from "./tables";

/** The stored endpoints of a scope, in no particular order (not copies: callers copy). */
export function endpointsOf(t: Tables, scope: Scope): WebhookEndpointRecord[] {
  return [...t.webhookEndpoints.values()].filter((endpoint) => inScope(endpoint, scope));
}

/** Webhook endpoints: reads. */
export function webhookEndpointReads(t: Tables, run: Run): WebhookEndpointReads {
  return {
    getWebhookEndpoint: (scope, id) => run("getWebhookEndpoint", () => scoped(t.webhookEndpoints.get(id), scope, copyEndpoint)),
    listWebhookEndpoints: (scope) => run("listWebhookEndpoints", () => endpointsOf(t, scope).sort(compareCreated).map(copyEndpoint)),
  };
}

/** Webhook endpoints: writes. */
export function webhookEndpointWrites(t: Tables, run: Run, undo: Undo[]): Writes<WebhookEndpointStore, WebhookEndpointReads> {
  return {
    insertWebhookEndpoint: (endpoint) =>
      run("insertWebhookEndpoint", () => {
        if (t.webhookEndpoints.has(endpoint.id)) conflict(`webhook endpoint ${endpoint.id}`);
        setIn(t.webhookEndpoints, endpoint.id, copyEndpoint(endpoint), undo);
      }),
    lockWebhookEndpoint: (id) => run("lockWebhookEndpoint", () => pick(t.webhookEndpoints.get(id), copyEndpoint)),
    updateWebhookEndpoint: (endpoint) =>
      run("updateWebhookEndpoint", () => {
        if (!t.webhookEndpoints.has(endpoint.id)) missing(`webhook endpoint ${endpoint.id}`);
        setIn(t.webhookEndpoints, endpoint.id, copyEndpoint(endpoint), undo);
      }),
    deleteWebhookEndpoint: (id) =>
      run("deleteWebhookEndpoint", () => {
        if (!t.webhookEndpoints.has(id)) return false;
        deleteIn(t.webhookEndpoints, id, undo);
        return true;
      }),
  };
}
