import { parseEther, parseUnits, type Address, type Hash, type Hex } from "viem";
import { expect } from "vitest";
import { evmChain, type EvmChain, type EvmChainOptions } from "../../../../src/evm";
import { payerAbi, payerBytecode, testTokenAbi, testTokenBytecode } from "../../../fixtures/contracts/artifacts";
import { setup, type Harness } from "../../../helpers";
import type { Anvil } from "./anvil";
import { get } from "../../../http/v1/support";
import express from "express";
import request from "supertest";
import { createPaymentRouter, staticPricing, type ChainAdapter, type PaymentRouterOptions, type Storage } from "../../../../src/index";

/**
 * Shared steps of the live EVM tests: contracts deployed on a real anvil, a router with live
 * `evmChain` adapters, payers that pay from anvil's dev accounts, and status reads over HTTP.
 */

/** Dev account that pays invoices. */
export const PAYER = 1;
/** Dev account whose key is the adapter's hot wallet. */
export const HOT = 9;

/** Deploys a contract from dev account 0 and returns its address. */
export async function deploy(node: Anvil, abi: readonly unknown[], bytecode: Hex, args: readonly unknown[] = []): Promise<Address> {
  const hash = await node.wallet.deployContract({ abi, bytecode, args, account: node.account(0), chain: null } as never);
  const receipt = await node.public.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
  return receipt.contractAddress!;
}

/** A TestToken (ERC-20 with open mint) with these decimals, `supply` minted to the payer. */
export async function deployToken(node: Anvil, symbol: string, decimals: number, supply = "1000000"): Promise<Address> {
  const token = await deploy(node, testTokenAbi, testTokenBytecode, [`Test ${symbol}`, symbol, decimals]);
  await mintToken(node, token, node.account(PAYER).address, supply, decimals);
  return token;
}

/** A contract that forwards what it is sent with an internal call (as exchanges pay). */
export function deployPayer(node: Anvil): Promise<Address> {
  return deploy(node, payerAbi, payerBytecode);
}

/** Waits for a sent transaction's receipt and asserts it succeeded. */
export async function mine(node: Anvil, sent: Promise<Hash>): Promise<Hash> {
  const hash = await sent;
  const receipt = await node.public.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
  return hash;
}

/** Mints `amount` (a decimal string) of a test token to `to`, from the deployer, and waits for it to be mined. */
export function mintToken(node: Anvil, token: Address, to: Address, amount: string, decimals: number): Promise<Hash> {
  return mine(
    node,
    node.wallet.writeContract({
      address: token,
      abi: testTokenAbi,
      functionName: "mint",
      args: [to, parseUnits(amount, decimals)],
      account: node.account(0),
      chain: null,
    }),
  );
}

/** Sends `amount` (a decimal string) of the native coin from the payer. */
export function payNative(node: Anvil, to: string, amount: string, from = PAYER): Promise<Hash> {
  return mine(node, node.wallet.sendTransaction({ account: node.account(from), to: to as Address, value: parseUnits(amount, 18), chain: null }));
}

/** Sends `amount` (a decimal string) of a token from the payer. */
export function payToken(node: Anvil, token: Address, decimals: number, to: string, amount: string, from = PAYER): Promise<Hash> {
  return mine(
    node,
    node.wallet.writeContract({
      address: token,
      abi: testTokenAbi,
      functionName: "transfer",
      args: [to as Address, parseUnits(amount, decimals)],
      account: node.account(from),
      chain: null,
    }),
  );
}

/** Sends native coin to `to` through the Payer contract's internal call. */
export function payThroughContract(node: Anvil, payer: Address, to: string, amount: string): Promise<Hash> {
  return mine(
    node,
    node.wallet.writeContract({
      address: payer,
      abi: payerAbi,
      functionName: "pay",
      args: [to as Address],
      value: parseUnits(amount, 18),
      account: node.account(PAYER),
      chain: null,
    }),
  );
}

/** An ETH adapter on `node` with the hot wallet of dev account HOT. */
export function ethChain(node: Anvil, options: Partial<EvmChainOptions> = {}): EvmChain {
  return evmChain({ network: "ETH", rpcUrl: node.rpcUrl, hotWallet: node.privateKey(HOT), ...options });
}

/** A router with live chains, background loops off, webhooks to local receivers allowed. */
export function liveHarness(chains: ChainAdapter[], options: PaymentRouterOptions = {}): Promise<Harness> {
  return setup({
    chains,
    pricing: staticPricing({ allowLive: true }),
    publicUrl: "https://shop.example",
    webhooks: { intervalMs: false, allowPrivateUrls: true, retrySchedule: [5, 5, 5] },
    ...options,
  });
}

/**
 * The same service started again on the same storage (a restart): a new router and app, the
 * merchant and keys of `h` as stored.
 */
export async function restart(h: Harness, chains: ChainAdapter[], storage: Storage): Promise<Harness> {
  const router = createPaymentRouter({
    storage,
    chains,
    pricing: staticPricing({ allowLive: true }),
    publicUrl: "https://shop.example",
    backgroundIntervalMs: false,
    now: h.clock.now,
    logger: h.logger,
    webhooks: { intervalMs: false, allowPrivateUrls: true, retrySchedule: [5, 5, 5] },
  });
  const app = express();
  app.use(router);
  const post = (path: string, body?: unknown, key: string | null = h.testKey) => {
    let call = request(app).post(path);
    if (key !== null) call = call.set("Authorization", `Bearer ${key}`);
    return body === undefined ? call : call.send(body as object);
  };
  return { ...h, app, router, post, prefix: "" };
}

/** GET /v1/payments/:id with the live key. */
export async function payment(h: Harness, id: string) {
  const res = await get(h, `/v1/payments/${id}`, h.liveKey);
  expect(res.status, res.text).toBe(200);
  return res.body as { id: string; status: string; receivedAmount: string; payAmount: string; address: string; [key: string]: unknown };
}

/** Creates a fixed-chain live payment and returns it. */
export async function livePayment(h: Harness, body: Record<string, unknown>) {
  const res = await h.post("/v1/payments", body, h.liveKey);
  expect(res.status, res.text).toBe(200);
  return res.body as { id: string; status: string; address: string; payAmount: string; [key: string]: unknown };
}

/** Runs background rounds until they find nothing more to do (at most `max`). */
export async function settle(h: Harness, max = 5): Promise<void> {
  for (let i = 0; i < max; i++) {
    const report = await h.router.tick();
    if (report.depositsApplied === 0 && report.payoutsProgressed === 0 && report.chainTasks === 0 && report.webhooksSent === 0) return;
  }
}

/** Signs a payment from the payer without sending it, so that the very same transaction can be mined again (after a reorg). */
export async function signedPayment(node: Anvil, to: string, amount: string): Promise<Hex> {
  const account = node.account(PAYER);
  const request = await node.wallet.prepareTransactionRequest({ account, to: to as Hex, value: parseEther(amount), chain: null });
  return account.signTransaction(request as never);
}

/** The live event log as GET /v1/events lists it: type and payment id of each event, oldest first. */
export async function liveEvents(h: Harness): Promise<string[]> {
  const res = await get(h, "/v1/events?limit=100", h.liveKey);
  expect(res.status, res.text).toBe(200);
  return (res.body.data as Array<{ type: string; data: { id: string } }>).map((event) => `${event.type} ${event.data.id}`);
}
