import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BaseError,
  ContractFunctionRevertedError,
  getAddress,
  parseEther,
  parseEventLogs,
  parseUnits,
  zeroAddress,
  zeroHash,
  type Abi,
  type Address,
  type Hex,
  type TransactionReceipt,
} from "viem";
import { forwarderAbi, forwarderFactoryAbi } from "../../../../src/adapters/chain/evm/contracts/artifacts";
import {
  balancesOfCallData,
  decodeBalancesOf,
  DETERMINISTIC_DEPLOYER,
  factoryAddress,
  factoryDeploymentData,
  FORWARDER_INIT_CODE_HASH,
  forwarderAddress,
  forwarderSalt,
  sweepCallData,
} from "../../../../src/adapters/chain/evm/forwarders";
import { startAnvil, type Anvil } from "./anvil";
import { payerAbi, payerBytecode, testTokenAbi, testTokenBytecode } from "../../../fixtures/contracts/artifacts";

// Everything a sweep can revert with: the factory's errors, the forwarder's, and the token's own
// (bubbled up through the forwarder's constructor).
const sweepErrorsAbi = [...forwarderFactoryAbi, ...forwarderAbi, ...testTokenAbi] as const;

let node: Anvil;
let receiver: Address;
let factory: Address;
let factoryDeployment: TransactionReceipt;
let usd6: Address; // TestToken with 6 decimals, as USDT and USDC have
let payer: Address;
const gas: Record<string, bigint> = {};

beforeAll(async () => {
  node = await startAnvil();
  receiver = node.account(1).address;
  factoryDeployment = await send(0, DETERMINISTIC_DEPLOYER, factoryDeploymentData(receiver));
  factory = factoryAddress(receiver);
  usd6 = await deploy(testTokenAbi, testTokenBytecode, ["Test USD", "TUSD", 6]);
  payer = await deploy(payerAbi, payerBytecode, []);
});

afterAll(async () => {
  await node?.stop();
  // REPORT_GAS=1 npx vitest run test/adapters/chain/evm/forwarders.test.ts
  if (process.env.REPORT_GAS) console.log("sweep gas used:", gas);
});

async function send(from: number, to: Address, data: Hex, value = 0n, gasLimit?: bigint): Promise<TransactionReceipt> {
  const hash = await node.wallet.sendTransaction({ account: node.account(from), to, data, value, chain: null, ...(gasLimit ? { gas: gasLimit } : {}) });
  return node.public.waitForTransactionReceipt({ hash });
}

async function deploy(abi: Abi, bytecode: Hex, args: readonly unknown[]): Promise<Address> {
  const hash = await node.wallet.deployContract({ abi, bytecode, args, account: node.account(0), chain: null });
  const receipt = await node.public.waitForTransactionReceipt({ hash });
  return getAddress(receipt.contractAddress!);
}

function depositOf(invoiceId: string): { salt: Hex; address: Address } {
  const salt = forwarderSalt(invoiceId);
  return { salt, address: forwarderAddress(factory, salt) };
}

/** Sweeps as the receiver; returns the receipt, the Swept events and the receiver's fee. */
async function sweep(token: Address | null, salts: Hex[]) {
  const receipt = await send(1, factory, sweepCallData(token, salts));
  expect(receipt.status).toBe("success");
  const swept = parseEventLogs({ abi: forwarderFactoryAbi, eventName: "Swept", logs: receipt.logs }).map((log) => log.args);
  return { receipt, swept, fee: receipt.gasUsed * receipt.effectiveGasPrice };
}

const ethBalance = (address: Address) => node.public.getBalance({ address });
const tokenBalance = (token: Address, address: Address) =>
  node.public.readContract({ address: token, abi: testTokenAbi, functionName: "balanceOf", args: [address] });
const codeAt = async (address: Address) => (await node.public.getCode({ address })) ?? "0x";

async function mint(token: Address, to: Address, amount: bigint): Promise<void> {
  const hash = await node.wallet.writeContract({
    address: token,
    abi: testTokenAbi,
    functionName: "mint",
    args: [to, amount],
    account: node.account(0),
    chain: null,
  });
  await node.public.waitForTransactionReceipt({ hash });
}

/** The custom error a sweep by `from` would revert with, from a simulation. */
async function sweepRevert(from: number, token: Address | null, salts: Hex[]): Promise<{ errorName?: string; args?: readonly unknown[] }> {
  try {
    await node.public.simulateContract({
      address: factory,
      abi: sweepErrorsAbi,
      functionName: "sweep",
      args: [token ?? zeroAddress, salts],
      account: node.account(from),
    });
  } catch (error) {
    const reverted = error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null;
    if (reverted instanceof ContractFunctionRevertedError) return { errorName: reverted.data?.errorName, args: reverted.data?.args };
    throw error;
  }
  throw new Error("the sweep did not revert");
}

describe("the factory", () => {
  it("is deployed through the deterministic deployment proxy at exactly factoryAddress(receiver)", async () => {
    expect(factoryDeployment.status).toBe("success");
    expect(await codeAt(factory)).not.toBe("0x");
    expect(await node.public.readContract({ address: factory, abi: forwarderFactoryAbi, functionName: "receiver" })).toBe(receiver);
    expect(await node.public.readContract({ address: factory, abi: forwarderFactoryAbi, functionName: "forwarderInitCodeHash" })).toBe(
      FORWARDER_INIT_CODE_HASH,
    );
    // Another receiver gets another factory, hence other deposit addresses.
    expect(factoryAddress(node.account(2).address)).not.toBe(factory);
    gas.factoryDeployment = factoryDeployment.gasUsed;
  });

  it("computes the same deposit addresses as forwarderAddress, for any salt", async () => {
    const salts: Hex[] = [zeroHash, `0x${"ff".repeat(32)}`, forwarderSalt("inv_1"), forwarderSalt("inv_2"), forwarderSalt("ünïcödé-id")];
    for (const salt of salts) {
      const onChain = await node.public.readContract({ address: factory, abi: forwarderFactoryAbi, functionName: "forwarderAddress", args: [salt] });
      expect(forwarderAddress(factory, salt)).toBe(onChain);
    }
    expect(new Set(salts.map((salt) => forwarderAddress(factory, salt))).size).toBe(salts.length);
  });

  it("reads exact native and token balances of many addresses in one eth_call", async () => {
    const a = depositOf("balances-a");
    const b = depositOf("balances-b");
    const empty = depositOf("balances-empty");
    await send(0, a.address, "0x", parseEther("0.25"));
    await mint(usd6, b.address, parseUnits("12.345678", 6));
    const call = async (token: Address | null) => {
      const { data } = await node.public.call({ to: factory, data: balancesOfCallData(token, [a.address, b.address, empty.address]) });
      return decodeBalancesOf(data!);
    };
    expect(await call(null)).toEqual([parseEther("0.25"), 0n, 0n]);
    expect(await call(usd6)).toEqual([0n, 12_345_678n, 0n]);
    // Asked of an address with no factory, the answer explains itself instead of failing to decode.
    const { data } = await node.public.call({ to: node.account(7).address, data: balancesOfCallData(null, [a.address]) });
    expect(() => decodeBalancesOf(data ?? "0x")).toThrow(/factory is probably not deployed/);
  });

  it("refuses a sweep from anyone but the receiver, and moves nothing", async () => {
    const deposit = depositOf("stranger");
    await send(0, deposit.address, "0x", parseEther("1"));
    expect(await sweepRevert(0, null, [deposit.salt])).toEqual({ errorName: "NotReceiver", args: undefined });
    // Mined anyway (gas given, so no estimate stops it): the transaction fails on chain too.
    const receipt = await send(0, factory, sweepCallData(null, [deposit.salt]), 0n, 300_000n);
    expect(receipt.status).toBe("reverted");
    expect(await ethBalance(deposit.address)).toBe(parseEther("1"));
    expect(await codeAt(deposit.address)).toBe("0x");
  });
});

describe("a native-coin sweep", () => {
  it("moves a plain transfer's exact amount to the receiver and leaves no code behind", async () => {
    const deposit = depositOf("eth-plain");
    const amount = parseEther("1.234567890123456789");
    await send(0, deposit.address, "0x", amount);
    const before = await ethBalance(receiver);
    const { swept, fee, receipt } = await sweep(null, [deposit.salt]);
    gas.nativeFirst = receipt.gasUsed;
    expect(await ethBalance(receiver)).toBe(before + amount - fee);
    expect(await ethBalance(deposit.address)).toBe(0n);
    expect(await codeAt(deposit.address)).toBe("0x");
    expect(swept).toEqual([{ token: zeroAddress, forwarder: deposit.address, amount }]);
  });

  it("moves money that arrived through a contract's internal call (Payer.pay)", async () => {
    const deposit = depositOf("eth-internal");
    const amount = parseEther("0.5");
    const hash = await node.wallet.writeContract({
      address: payer,
      abi: payerAbi,
      functionName: "pay",
      args: [deposit.address],
      value: amount,
      account: node.account(0),
      chain: null,
    });
    await node.public.waitForTransactionReceipt({ hash });
    expect(await ethBalance(deposit.address)).toBe(amount);
    const before = await ethBalance(receiver);
    const { fee } = await sweep(null, [deposit.salt]);
    expect(await ethBalance(receiver)).toBe(before + amount - fee);
    expect(await ethBalance(deposit.address)).toBe(0n);
  });

  it("sweeps the same address again after it receives more (the salt is reusable)", async () => {
    const deposit = depositOf("eth-reuse");
    await send(0, deposit.address, "0x", parseEther("1"));
    await sweep(null, [deposit.salt]);
    await send(0, deposit.address, "0x", parseEther("2"));
    const before = await ethBalance(receiver);
    const { fee, swept, receipt } = await sweep(null, [deposit.salt]);
    gas.nativeReuse = receipt.gasUsed;
    expect(await ethBalance(receiver)).toBe(before + parseEther("2") - fee);
    expect(swept).toEqual([{ token: zeroAddress, forwarder: deposit.address, amount: parseEther("2") }]);
    expect(await codeAt(deposit.address)).toBe("0x");
  });

  it("sweeps several addresses in one transaction, skipping empty and repeated salts", async () => {
    const deposits = ["many-1", "many-2", "many-3"].map(depositOf);
    const empty = depositOf("many-empty");
    const amounts = [parseEther("0.1"), parseEther("0.02"), parseEther("0.003")];
    const total = amounts.reduce((a, b) => a + b);
    const hash = await node.wallet.writeContract({
      address: payer,
      abi: payerAbi,
      functionName: "payMany",
      args: [deposits.map((d) => d.address), amounts],
      value: total,
      account: node.account(0),
      chain: null,
    });
    await node.public.waitForTransactionReceipt({ hash });
    const before = await ethBalance(receiver);
    const salts = [deposits[0]!.salt, empty.salt, deposits[1]!.salt, deposits[2]!.salt, deposits[0]!.salt];
    const { fee, swept, receipt } = await sweep(null, salts);
    gas.nativeThreeAddresses = receipt.gasUsed;
    expect(await ethBalance(receiver)).toBe(before + total - fee);
    expect(swept).toEqual(deposits.map((d, i) => ({ token: zeroAddress, forwarder: d.address, amount: amounts[i] })));
    for (const d of [...deposits, empty]) expect(await ethBalance(d.address)).toBe(0n);
    expect(await codeAt(empty.address)).toBe("0x");
  });

  it("does nothing, without reverting, when no address holds anything", async () => {
    const { swept, receipt } = await sweep(null, [depositOf("never-paid-1").salt, depositOf("never-paid-2").salt]);
    gas.nativeTwoEmpty = receipt.gasUsed;
    expect(swept).toEqual([]);
  });
});

describe("a token sweep", () => {
  it("moves a 6-decimal token balance exactly, and reuses the address", async () => {
    const deposit = depositOf("usd6");
    const first = parseUnits("100.5", 6);
    await mint(usd6, deposit.address, first);
    const before = await tokenBalance(usd6, receiver);
    const { swept, receipt } = await sweep(usd6, [deposit.salt]);
    gas.tokenFirst = receipt.gasUsed;
    expect(await tokenBalance(usd6, receiver)).toBe(before + first);
    expect(await tokenBalance(usd6, deposit.address)).toBe(0n);
    expect(swept).toEqual([{ token: usd6, forwarder: deposit.address, amount: first }]);
    expect(await codeAt(deposit.address)).toBe("0x");

    await mint(usd6, deposit.address, 1n);
    const again = await sweep(usd6, [deposit.salt]);
    gas.tokenReuse = again.receipt.gasUsed;
    expect(await tokenBalance(usd6, receiver)).toBe(before + first + 1n);
    expect(again.swept).toEqual([{ token: usd6, forwarder: deposit.address, amount: 1n }]);
  });

  it("also hands the receiver any native coin at the address (the forwarder self-destructs to it)", async () => {
    const deposit = depositOf("usd6-and-eth");
    await mint(usd6, deposit.address, 7n);
    await send(0, deposit.address, "0x", parseEther("0.01"));
    const before = await ethBalance(receiver);
    const { fee } = await sweep(usd6, [deposit.salt]);
    expect(await ethBalance(receiver)).toBe(before + parseEther("0.01") - fee);
    expect(await ethBalance(deposit.address)).toBe(0n);
  });

  it("accepts a token whose transfer returns no data, like USDT on Ethereum", async () => {
    const usdt = await deploy(testTokenAbi, testTokenBytecode, ["Tether-like", "USDTL", 6]);
    await node.public.waitForTransactionReceipt({
      hash: await node.wallet.writeContract({
        address: usdt,
        abi: testTokenAbi,
        functionName: "setTransferReturn",
        args: [1],
        account: node.account(0),
        chain: null,
      }),
    });
    const deposit = depositOf("usdt-like");
    await mint(usdt, deposit.address, 5_000_000n);
    const { swept } = await sweep(usdt, [deposit.salt]);
    expect(swept).toEqual([{ token: usdt, forwarder: deposit.address, amount: 5_000_000n }]);
    expect(await tokenBalance(usdt, receiver)).toBe(5_000_000n);
  });

  it("reverts the whole sweep, with the reason, when the token refuses a transfer", async () => {
    const token = await deploy(testTokenAbi, testTokenBytecode, ["Refusing", "NOPE", 18]);
    const paid = depositOf("refused-paid");
    const other = depositOf("refused-other");
    await mint(token, paid.address, 10n);
    await mint(token, other.address, 20n);
    const write = async (functionName: "setTransferReturn" | "setBlocked", args: readonly unknown[]) =>
      node.public.waitForTransactionReceipt({
        hash: await node.wallet.writeContract({ address: token, abi: testTokenAbi, functionName, args, account: node.account(0), chain: null } as never),
      });

    await write("setTransferReturn", [2]); // returns false and moves nothing
    expect(await sweepRevert(1, token, [other.salt, paid.salt])).toEqual({ errorName: "TransferRefused", args: [token] });

    await write("setTransferReturn", [0]);
    await write("setBlocked", [paid.address, true]);
    expect(await sweepRevert(1, token, [other.salt, paid.salt])).toEqual({ errorName: "Blocked", args: [paid.address] });
    // Nothing moved, not even the address that could have been swept.
    expect(await tokenBalance(token, other.address)).toBe(20n);

    await write("setBlocked", [paid.address, false]);
    expect((await sweep(token, [other.salt, paid.salt])).swept.map((s) => s.amount)).toEqual([20n, 10n]);
  });
});

describe("the deposit-address helpers", () => {
  it("derive a distinct, stable salt from each invoice id", () => {
    expect(forwarderSalt("inv_1")).toBe(forwarderSalt("inv_1"));
    expect(forwarderSalt("inv_1")).not.toBe(forwarderSalt("inv_2"));
    expect(() => forwarderSalt("")).toThrow(/empty/);
  });

  it("keep the frozen address format: same init code hash, factory and deposit address", () => {
    // If this fails, the contracts' bytes changed: every deposit address moves with them, and
    // money already paid to the old ones can only be swept by the old factory. Only change these
    // values on purpose, knowing that.
    const hot = getAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8"); // anvil account 1
    expect({
      initCodeHash: FORWARDER_INIT_CODE_HASH,
      factory: factoryAddress(hot),
      deposit: forwarderAddress(factoryAddress(hot), forwarderSalt("inv_1")),
    }).toMatchInlineSnapshot(`
      {
        "deposit": "0x17D57337549573bdc98336e594D26824fa4051DD",
        "factory": "0xc81B1041687906517B2d660bD7e69f3f793230C9",
        "initCodeHash": "0x1dabf5c79604e6c6baa2f99310802fb18f304083244ae0501085e0c812458fa0",
      }
    `);
  });

  it("reject malformed salts and a zero token address before anything is sent", () => {
    expect(() => forwarderAddress(zeroAddress, "0x1234")).toThrow(/32 bytes/);
    expect(() => sweepCallData(null, [`0x${"a".repeat(63)}`])).toThrow(/32 bytes/);
    expect(() => sweepCallData(zeroAddress, [zeroHash])).toThrow(/null for the native coin/);
    expect(() => factoryAddress(zeroAddress)).toThrow(/burnt/);
  });
});
