import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { setup } from "../helpers";
import { closeReceivers, createEndpoint, startReceiver } from "../delivery/receiver";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(() => {
  trace.setGlobalTracerProvider(provider);
});

afterAll(async () => {
  trace.disable();
  await provider.shutdown();
});

beforeEach(() => exporter.reset());

describe("OpenTelemetry spans", () => {
  it("records a span per API request (named by its route template), background round, chain poll, payout broadcast and webhook attempt", async () => {
    const h = await setup();
    try {
      const receiver = await startReceiver();
      await createEndpoint(h, receiver.url, { events: ["payment.created"] });
      const invoice = await h.post("/api/v1/merchants/whitelabel/create", { amount: 100, payCurrency: "USDT", network: "TRX" });
      expect(invoice.status).toBe(200);
      await h.post("/api/v1/sandbox/deposit/create", { address: invoice.body.address, amount: invoice.body.payAmount, confirmations: 19 });
      const payout = await h.post("/api/v1/merchants/payout/create", {
        currency: "USDT",
        network: "TRX",
        amount: 10,
        address: "TCUmA2JEPuSiBFmNGRiVktBZKbLB89JnSq",
      });
      expect(payout.status).toBe(200);
      await h.router.tick();
      expect(receiver.requests.length).toBeGreaterThan(0);

      const spans = exporter.getFinishedSpans();
      const names = spans.map((span) => span.name);
      expect(names).toContain("POST /api/v1/merchants/whitelabel/create");
      expect(names).toContain("background round");
      expect(names).toContain("chain poll");
      expect(names).toContain("payout broadcast");
      expect(names).toContain("webhook attempt");
      const request = spans.find((span) => span.name === "POST /api/v1/merchants/whitelabel/create")!;
      expect(request.attributes["http.route"]).toBe("/api/v1/merchants/whitelabel/create");
      expect(request.attributes["http.response.status_code"]).toBe(200);
      expect(request.instrumentationScope.name).toBe("express-crypto-pay");
    } finally {
      await closeReceivers();
      await h.router.close();
    }
  });

  it("records nothing with tracing turned off", async () => {
    const h = await setup({ tracing: false });
    try {
      await h.post("/api/v1/merchants/whitelabel/create", { amount: 100, payCurrency: "USDT", network: "TRX" });
      await h.router.tick();
      expect(exporter.getFinishedSpans()).toEqual([]);
    } finally {
      await h.router.close();
    }
  });
});
