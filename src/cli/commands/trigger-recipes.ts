import { addressFamily, type AddressFamily } from "../../chains";
import type { EventType } from "../../index";
import { type Json, RemoteError } from "../remote/api";
import { decimal, halfOf, type Sandbox } from "../remote/sandbox";
import { refundClaimRecipes } from "./trigger-claims";

/** What a recipe needs besides the sandbox: amounts, where payouts go, how long to wait. */
export interface RecipeInput {
  sandbox: Sandbox;
  /** The payment's amount, in its coin (it funds withdrawals, refunds and conversions too). */
  amount: string;
  /** What a withdrawal or refund moves; undefined: the network's withdrawMin. */
  payoutAmount: string | undefined;
  /** Where withdrawals and refunds go; undefined: a sample address of the network (see `destination`). */
  address: string | undefined;
  /** How long to wait for the service's background work or a person. */
  timeoutMs: number;
  /** The orderId the payments carry. */
  orderId: string;
}

/** The records a recipe made, by what they are ("payment", "withdrawal", ...). */
export type Records = Record<string, string>;

/** One way to make the service produce an event for real. */
type Recipe = (input: RecipeInput) => Promise<Records>;

/** A payment with a deposit of its whole amount seen but not yet confirmed. */
async function depositSeen(input: RecipeInput): Promise<{ payment: Json; txHash: string }> {
  const payment = await input.sandbox.createPayment(input.amount, input.orderId);
  const txHash = await input.sandbox.deposit(payment, payment.payAmount, 0);
  return { payment, txHash };
}

/**
 * A valid destination of each address family, for the sandbox's payouts (it checks addresses by
 * the same rules as the real chains; nothing is sent anywhere): testnet forms where the family
 * has them, an unspendable address where it does not.
 */
const SAMPLE_ADDRESSES: Readonly<Record<AddressFamily, string>> = {
  evm: "0x000000000000000000000000000000000000dEaD",
  bitcoin: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx",
  litecoin: "ltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kgmn4n9",
  tron: "TCUmA2JEPuSiBFmNGRiVktBZKbLB89JnSq",
  // Stagenet, with the keys of the Monero General Fund's address.
  monero: "54NHLfzi6KNBoZ4NMDwYtN18obc8AemS33DBLWs3H7otXft3XjrpDtQGv7SqSsaBYBb98uNbr2VBBEt7f2wfn3RVGRtzGna",
};

/**
 * Where a payout goes: --address, else a sample of the network's address family, else (a network
 * with no known rule, which the sandbox checks by shape only) the funding payment's own address.
 */
function destination(input: RecipeInput, funding: Json): string {
  if (input.address !== undefined) return input.address;
  const family = addressFamily(input.sandbox.chain);
  return family === null ? funding.address : SAMPLE_ADDRESSES[family];
}

/** Pays a payment in full, then confirms the deposit: confirming, confirmed, completed. */
const paidInFull: Recipe = async (input) => {
  const { minConfirm } = await input.sandbox.network();
  const { payment, txHash } = await depositSeen(input);
  await input.sandbox.confirm(txHash, minConfirm);
  return { payment: payment.id, deposit: txHash };
};

/**
 * How a withdrawal or refund is made and followed: create it from a funded balance (a paid
 * payment), then, by the event wanted, leave it, wait for the service to settle it, make the
 * sandbox fail it, or wait for a person to reject it.
 */
type PayoutEnd = "processing" | "completed" | "failed" | "awaiting_approval" | "rejected";

function payoutRecipe(kind: "withdrawal" | "refund", end: PayoutEnd): Recipe {
  return async (input) => {
    const { sandbox } = input;
    const network = await sandbox.network();
    const amount = input.payoutAmount ?? decimal(network.withdrawMin);
    const path = kind === "withdrawal" ? "/v1/withdrawals" : "/v1/refunds";
    // The service settles a payout on its next background round: one it settled before the
    // sandbox could fail it is tried again with a new one.
    for (let attempt = 1; ; attempt++) {
      const funding = await sandbox.paidPayment(input.amount, input.orderId);
      const address = destination(input, funding);
      const body = kind === "withdrawal" ? { currency: sandbox.currency, chain: sandbox.chain, amount, address } : { paymentId: funding.id, amount, address };
      const payout = await sandbox.api.post(path, body);
      sandbox.say(`created ${kind} ${payout.id} of ${amount} ${sandbox.currency} to ${address} (${payout.status})`);
      const records = { payment: funding.id, [kind]: payout.id };
      const held = payout.status === "AWAITING_APPROVAL";
      if (end === "awaiting_approval" || end === "rejected") {
        if (!held) {
          throw new Error(
            `${kind} ${payout.id} went straight to ${payout.status}: the merchant has no payout approval threshold below ${amount} ${sandbox.currency}. Set one (the dashboard's money controls, admin.setPayoutApproval or the router's payouts.approval) or pass a larger --payout-amount (and an --amount that covers it).`,
          );
        }
        if (end === "rejected") {
          sandbox.say(`${payout.id} awaits approval: reject it in the dashboard (payouts awaiting approval) to produce the event`);
          await sandbox.waitFor(`${path}/${payout.id}`, "REJECTED", input.timeoutMs, "a person to reject it");
        }
        return records;
      }
      if (held) throw new Error(`${kind} ${payout.id} is held for approval (above the merchant's threshold): pass a smaller --payout-amount`);
      if (end === "completed") await sandbox.waitFor(`${path}/${payout.id}`, "COMPLETED", input.timeoutMs, "the service to settle it");
      if (end !== "failed") return records;
      try {
        await sandbox.failPayout(payout.id);
        return records;
      } catch (error) {
        if (!(error instanceof RemoteError && error.status === 409) || attempt === 3) throw error;
        sandbox.say(`the service settled ${payout.id} before the sandbox could fail it; again with a new ${kind}`);
      }
    }
  };
}

/** The claim recipes, given this file's destination rule for where the payer claims to. */
function withDestination<K extends string>(
  recipes: Record<K, (input: RecipeInput & { claimTo: (funding: Json) => string }) => Promise<Records>>,
): Record<K, Recipe> {
  const entries = Object.entries(recipes) as Array<[K, (input: RecipeInput & { claimTo: (funding: Json) => string }) => Promise<Records>]>;
  return Object.fromEntries(
    entries.map(([type, recipe]) => [type, (input: RecipeInput) => recipe({ ...input, claimTo: (funding) => destination(input, funding) })]),
  ) as Record<K, Recipe>;
}

/** A recipe for every event type the service sends, each through the sandbox's real path. */
export const RECIPES: { readonly [K in EventType]: Recipe } = {
  "payment.created": async (input) => ({ payment: (await input.sandbox.createPayment(input.amount, input.orderId)).id }),
  "payment.confirming": async (input) => {
    const { payment, txHash } = await depositSeen(input);
    return { payment: payment.id, deposit: txHash };
  },
  "payment.confirmed": paidInFull,
  "payment.completed": paidInFull,
  // Half the amount, confirmed, then the window closes: underpaid for good.
  "payment.failed": async (input) => {
    const { sandbox } = input;
    const { minConfirm } = await sandbox.network();
    const payment = await sandbox.createPayment(input.amount, input.orderId);
    const txHash = await sandbox.deposit(payment, halfOf(payment.payAmount), minConfirm);
    await sandbox.expire(payment.id);
    return { payment: payment.id, deposit: txHash };
  },
  "payment.expired": async (input) => {
    const payment = await input.sandbox.createPayment(input.amount, input.orderId);
    await input.sandbox.expire(payment.id);
    return { payment: payment.id };
  },
  // Another coin of the same network sent to the payment's address, and credited.
  "payment.unexpected_deposit": async (input) => {
    const { sandbox } = input;
    const list = await sandbox.currencies();
    const stray = list.find((entry: Json) => entry.symbol !== sandbox.currency && entry.networks.some((net: Json) => net.network === sandbox.chain));
    if (!stray) throw new Error(`no other coin than ${sandbox.currency} runs on ${sandbox.chain}: pass a --chain that carries two coins`);
    const network = stray.networks.find((net: Json) => net.network === sandbox.chain);
    const payment = await sandbox.createPayment(input.amount, input.orderId);
    const txHash = await sandbox.deposit(payment, decimal(network.depositMin * 10), network.minConfirm, stray.symbol);
    return { payment: payment.id, deposit: txHash };
  },
  // Paid and credited, then the deposit leaves the chain (a reorg deeper than its confirmations).
  "payment.reversed": async (input) => {
    const { sandbox } = input;
    const { minConfirm } = await sandbox.network();
    const payment = await sandbox.createPayment(input.amount, input.orderId);
    const txHash = await sandbox.deposit(payment, payment.payAmount, minConfirm);
    await sandbox.drop(txHash);
    return { payment: payment.id, deposit: txHash };
  },
  "payment.deposit_dropped": async (input) => {
    const { payment, txHash } = await depositSeen(input);
    await input.sandbox.drop(txHash);
    return { payment: payment.id, deposit: txHash };
  },
  "payout.processing": payoutRecipe("withdrawal", "processing"),
  "payout.completed": payoutRecipe("withdrawal", "completed"),
  "payout.failed": payoutRecipe("withdrawal", "failed"),
  "payout.awaiting_approval": payoutRecipe("withdrawal", "awaiting_approval"),
  "payout.rejected": payoutRecipe("withdrawal", "rejected"),
  "refund.processing": payoutRecipe("refund", "processing"),
  "refund.completed": payoutRecipe("refund", "completed"),
  "refund.failed": payoutRecipe("refund", "failed"),
  "refund.awaiting_approval": payoutRecipe("refund", "awaiting_approval"),
  "refund.rejected": payoutRecipe("refund", "rejected"),
  ...withDestination(refundClaimRecipes()),
  // A paid balance converted into another coin, at the pair's smallest amount.
  "conversion.completed": async (input) => {
    const { sandbox } = input;
    const pairs: Json[] = await sandbox.api.post("/api/v1/exchange/pairs", {});
    const pair = pairs.find((entry) => entry.fromCurrency.symbol === sandbox.currency);
    if (!pair) throw new Error(`the service converts no ${sandbox.currency} into another coin: pass a --currency it has pairs for`);
    const funding = await sandbox.paidPayment(input.amount, input.orderId);
    const conversion = await sandbox.api.post("/v1/conversions", {
      fromCurrency: sandbox.currency,
      toCurrency: pair.toCurrency.symbol,
      amount: decimal(pair.minAmount),
    });
    sandbox.say(`converted ${conversion.amount} ${conversion.fromCurrency} into ${conversion.toAmount} ${conversion.toCurrency}: ${conversion.id}`);
    return { payment: funding.id, conversion: conversion.id };
  },
  // Subscription events
  "subscription.created": async (input) => {
    const subscription = await input.sandbox.createSubscription(input.amount, input.orderId);
    return { subscription: subscription.id, payment: subscription.openPaymentId };
  },
  // Its first period left unpaid past the grace days (the sandbox skips ahead to their end).
  "subscription.past_due": async (input) => {
    const subscription = await input.sandbox.createSubscription(input.amount, input.orderId);
    await input.sandbox.advanceSubscription(subscription.id);
    return { subscription: subscription.id, payment: subscription.openPaymentId };
  },
  // Past due, then paid late: active again.
  "subscription.renewed": async (input) => {
    const { sandbox } = input;
    const subscription = await sandbox.createSubscription(input.amount, input.orderId);
    await sandbox.advanceSubscription(subscription.id);
    await sandbox.payHosted(subscription.openPaymentId);
    await sandbox.waitFor(`/v1/subscriptions/${subscription.id}`, "active", input.timeoutMs, "the service to see the payment");
    return { subscription: subscription.id, payment: subscription.openPaymentId };
  },
  "subscription.cancelled": async (input) => {
    const subscription = await input.sandbox.createSubscription(input.amount, input.orderId);
    await input.sandbox.api.post(`/v1/subscriptions/${subscription.id}/cancel`, {});
    input.sandbox.say(`cancelled subscription ${subscription.id}`);
    return { subscription: subscription.id, payment: subscription.openPaymentId };
  },
};
