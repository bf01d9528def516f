import { setTimeout as sleep } from "node:timers/promises";
import type { Json, RemoteApi } from "./api";

/**
 * The steps `trigger` drives the sandbox with, each through the service's public API (/v1 and
 * the test-mode /api/v1/sandbox endpoints) and each told on a line of its own, so the developer
 * sees what happened and which records it made.
 */

/** A network of the currency list, as /api/v1/currencies shows it. */
export interface NetworkInfo {
  network: string;
  minConfirm: number;
  withdrawMin: number;
  depositMin: number;
}

/** A decimal string of a JSON number of the currency list (at most 8 decimals, as that list writes them). */
export const decimal = (value: number): string => value.toFixed(8).replace(/\.?0+$/, "") || "0";

/** Half of a decimal string, rounded down to its own decimals (never more digits than it had). */
export function halfOf(amount: string): string {
  const [whole, fraction = ""] = amount.split(".");
  const units = BigInt(`${whole}${fraction}`) / 2n;
  const digits = units.toString().padStart(fraction.length + 1, "0");
  return fraction.length === 0 ? digits : `${digits.slice(0, -fraction.length)}.${digits.slice(-fraction.length)}`;
}

/** The sandbox as `trigger` uses it: the service, the coin and network to pay in, and where to tell what it does. */
export class Sandbox {
  constructor(
    readonly api: RemoteApi,
    readonly currency: string,
    readonly chain: string,
    readonly say: (line: string) => void,
    private readonly signal: AbortSignal,
  ) {}

  /** The currency list of test mode. */
  currencies(): Promise<Json[]> {
    return this.api.post("/api/v1/currencies", {});
  }

  /** The network of `currency` (default: the one paid in) on `chain`, or an error naming what the list has. */
  async network(currency = this.currency): Promise<NetworkInfo> {
    const list = await this.currencies();
    const found = list.find((entry: Json) => entry.symbol === currency);
    const network = found?.networks.find((entry: Json) => entry.network === this.chain);
    if (!network) {
      const offered = list.flatMap((entry: Json) => entry.networks.map((net: Json) => `${entry.symbol} on ${net.network}`)).join(", ");
      throw new Error(`the service has no ${currency} on ${this.chain} in test mode (it has ${offered}): pass --currency and --chain`);
    }
    return network;
  }

  /** Creates a payment of `amount` in the coin, on the network. */
  async createPayment(amount: string, orderId: string): Promise<Json> {
    const payment = await this.api.post("/v1/payments", { amount, currency: this.currency, chain: this.chain, metadata: { orderId } });
    this.say(`created payment ${payment.id} (${payment.payAmount} ${payment.currency} to ${payment.address})`);
    return payment;
  }

  /** Sends `amount` of `coin` (default: the payment's) to the payment's address with `confirmations`. */
  async deposit(payment: Json, amount: string, confirmations: number, coin?: string): Promise<string> {
    const { txHash } = await this.api.post("/api/v1/sandbox/deposit/create", {
      address: payment.address,
      amount: Number(amount),
      confirmations,
      ...(coin === undefined ? {} : { coin }),
    });
    this.say(`sent a sandbox deposit of ${amount} ${coin ?? payment.currency} with ${confirmations} confirmation(s): ${txHash}`);
    return txHash;
  }

  /** Sets a deposit's confirmations. */
  async confirm(txHash: string, confirmations: number): Promise<void> {
    await this.api.post("/api/v1/sandbox/deposit/confirm", { txHash, confirmations });
    this.say(`confirmed ${txHash} (${confirmations} confirmations)`);
  }

  /** Drops a deposit, as a reorg would. */
  async drop(txHash: string): Promise<void> {
    await this.api.post("/api/v1/sandbox/deposit/drop", { txHash });
    this.say(`dropped ${txHash}`);
  }

  /** Expires a payment now. */
  async expire(paymentId: string): Promise<void> {
    const invoice = await this.api.post("/api/v1/sandbox/invoice/expire", { invoiceId: paymentId });
    this.say(`expired payment ${paymentId} (now ${invoice.status})`);
  }

  /** A payment of `amount`, paid in full and confirmed: the merchant's balance is credited. */
  async paidPayment(amount: string, orderId: string): Promise<Json> {
    const { minConfirm } = await this.network();
    const payment = await this.createPayment(amount, orderId);
    await this.deposit(payment, payment.payAmount, minConfirm);
    return this.get(`/v1/payments/${payment.id}`);
  }

  // Subscriptions
  /** Creates a monthly subscription of `amount` in the coin, its first payment made at once. */
  async createSubscription(amount: string, orderId: string): Promise<Json> {
    const subscription = await this.api.post("/v1/subscriptions", {
      customer: "trigger",
      amount,
      currency: this.currency,
      acceptedCoins: [this.currency],
      interval: "month",
      metadata: { orderId },
    });
    this.say(`created subscription ${subscription.id} (${subscription.amount} ${subscription.currency} a month; payment ${subscription.openPaymentId})`);
    return subscription;
  }

  /** Skips a test subscription ahead to the next thing its clock does (the sandbox endpoint). */
  async advanceSubscription(id: string): Promise<Json> {
    const subscription = await this.api.post("/api/v1/sandbox/subscription/advance", { subscriptionId: id });
    this.say(`advanced subscription ${id} (now ${subscription.status})`);
    return subscription;
  }

  /**
   * Pays a hosted payment as its payer would: picks the coin and network on its page (the form's
   * POST, as the payer's browser sends it), then sends the whole amount, confirmed.
   */
  async payHosted(paymentId: string): Promise<void> {
    const url = `${this.api.target.baseUrl}/pay/${encodeURIComponent(paymentId)}/method`;
    const response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "same-origin" },
      body: new URLSearchParams({ coin: this.currency, network: this.chain }).toString(),
      redirect: "manual",
      signal: AbortSignal.timeout(30_000),
    });
    if (response.status !== 303) throw new Error(`choosing ${this.currency} on ${this.chain} for ${paymentId} on its page answered ${response.status}`);
    const { minConfirm } = await this.network();
    const payment = await this.get(`/v1/payments/${paymentId}`);
    this.say(`picked ${this.currency} on ${this.chain} for payment ${paymentId}, as its payer would`);
    await this.deposit(payment, payment.payAmount, minConfirm);
  }

  /** Makes the sandbox fail a processing withdrawal or refund. */
  async failPayout(id: string): Promise<void> {
    await this.api.post("/api/v1/sandbox/payout/fail", { payoutId: id, reason: "failed on purpose by express-crypto-pay trigger" });
    this.say(`made the sandbox fail ${id}`);
  }

  /** GET of a record. */
  get(path: string): Promise<Json> {
    return this.api.get(path);
  }

  /**
   * Reads `path` every half second until its status is `status`, for at most `timeoutMs`: what
   * the service's background work (payout progress) or a person (an approval) does in its time.
   */
  async waitFor(path: string, status: string, timeoutMs: number, what: string): Promise<Json> {
    this.say(`waiting for ${what} (up to ${Math.round(timeoutMs / 1000)} s)...`);
    const until = Date.now() + timeoutMs;
    for (;;) {
      const record = await this.api.get(path);
      if (record.status === status) return record;
      if (Date.now() > until || this.signal.aborted) {
        throw new Error(`${path.split("/").pop()} is ${record.status}, not ${status}, after ${Math.round(timeoutMs / 1000)} s: ${what} did not happen`);
      }
      await sleep(500, undefined, { signal: this.signal }).catch(() => undefined);
    }
  }
}
