/**
 * Import rules of the source tree (`npm run check:imports`). Data flows one way, top down:
 * entry points -> http, dashboard, cli -> service (the composition root) -> api (the routes,
 * without a transport) -> core -> ports <- adapters; delivery, ops and adapters sit under the
 * service, schemas under the api. Type-only imports count: a cycle of types is still a cycle a
 * reader has to untangle.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: "no-cycles",
      comment: "No import cycle, type imports included.",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "core-stays-inside",
      comment: "The domain never reaches the shell, the sender, an adapter or the metrics and tracing code: it talks to them through its ports.",
      severity: "error",
      from: { path: "^src/core/" },
      to: { path: "^src/(adapters|http|delivery|webhooks|testing|client|ops|schemas|api|service|dashboard)/" },
    },
    {
      name: "lower-layers-stay-below",
      comment: "Nothing under the service reaches up to it or to a transport: the service wires them, the HTTP shell and the dashboard mount on it.",
      severity: "error",
      from: { path: "^src/(core|api|adapters|delivery|ops|schemas|client|webhooks)/" },
      to: { path: "^src/(http|dashboard|service|cli)/" },
    },
    {
      name: "observability-stays-aside",
      comment: "Metrics and tracing are wired in by the service; what they watch never imports them.",
      severity: "error",
      from: { path: "^src/(core|api|adapters|delivery|schemas|client|webhooks)/" },
      to: { path: "^src/ops/" },
    },
    {
      name: "schemas-under-api",
      comment: "The public schemas describe resources; the routes that use them import them, never the reverse.",
      severity: "error",
      from: { path: "^src/schemas/" },
      to: { path: "^src/api/" },
    },
    {
      name: "api-without-a-transport",
      comment: "The API's routes run over HTTP and in process alike: they never import Express or the HTTP shell.",
      severity: "error",
      from: { path: "^src/api/" },
      to: { path: "^src/(http|dashboard)/|node_modules/express" },
    },
    {
      name: "service-without-a-transport",
      comment: "The service runs with no HTTP at all (a worker process): Express, the shell and the dashboard mount on it from above.",
      severity: "error",
      from: { path: "^src/service/" },
      to: { path: "^src/(http|dashboard|cli)/|node_modules/express" },
    },
    {
      name: "http-beside-dashboard",
      comment: "The HTTP shell never builds the dashboard: both mount on the service, and src/payment-router.ts wires the router's dashboard().",
      severity: "error",
      from: { path: "^src/http/" },
      to: { path: "^src/dashboard/" },
    },
    {
      name: "core-without-express",
      comment: "Domain code never imports Express.",
      severity: "error",
      from: { path: "^src/core/" },
      to: { path: "node_modules/express" },
    },
    {
      name: "ports-import-nothing-outward",
      comment: "The ports are the domain's contracts: they use other ports and the shared helpers only.",
      severity: "error",
      from: { path: "^src/core/ports/" },
      to: { path: "^src/", pathNot: "^src/(core/ports/|core/[^/]+/records\\.ts$|errors\\.ts|money\\.ts|ids\\.ts|currencies\\.ts)" },
    },
    {
      name: "records-are-plain",
      comment: "The records (core/<aggregate>/records.ts) are the shapes storage keeps: like the ports, they use other records only.",
      severity: "error",
      from: { path: "^src/core/[^/]+/records\\.ts$" },
      to: { path: "^src/", pathNot: "^src/core/[^/]+/records\\.ts$" },
    },
    {
      name: "adapters-use-ports",
      comment: "Adapters implement ports: they import the ports and shared helpers, never core's services, the shell or the sender.",
      severity: "error",
      from: { path: "^src/adapters/" },
      to: { path: "^src/(core/(?!ports/|[^/]+/records\\.ts$)|http/|delivery/|webhooks/|testing/|client/)" },
    },
    {
      name: "cli-uses-the-public-api",
      comment: "The command line is a client of the package: it imports its public entry points only, as a host's own tooling would.",
      severity: "error",
      from: { path: "^src/cli/" },
      to: { path: "^src/", pathNot: "^src/(cli/|index\\.ts|postgres\\.ts|operator\\.ts|storage\\.ts|chains\\.ts|webhooks/index\\.ts|client/index\\.ts)" },
    },
    {
      name: "receiver-apart-from-service",
      comment: "The receiver toolkit (what users import to consume webhooks) never needs the service.",
      severity: "error",
      from: { path: "^src/webhooks/" },
      to: { path: "^src/(core/(?!ports/|[^/]+/records\\.ts$)|http/|delivery/|adapters/)" },
    },
    {
      name: "dashboard-through-its-backend",
      comment: "The dashboard reads and acts through its typed backend (the /v1 resources and the admin): never the HTTP shell, the storage or an adapter.",
      severity: "error",
      from: { path: "^src/dashboard/" },
      to: { path: "^src/(http/|adapters/|core/ports/storage/|core/context\\.ts)" },
    },
    {
      name: "html-kit-stands-alone",
      comment: "The HTML helpers the hosted pages and the dashboard share depend on neither of them, nor on the service.",
      severity: "error",
      from: { path: "^src/html/" },
      to: { path: "^src/(http|dashboard|core|delivery|adapters|client|ops)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
