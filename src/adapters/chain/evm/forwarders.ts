import {
  concat,
  decodeFunctionResult,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  getContractAddress,
  isAddress,
  isHex,
  keccak256,
  stringToHex,
  zeroAddress,
  zeroHash,
  type Address,
  type Hex,
} from "viem";
import { forwarderFactoryAbi, forwarderFactoryBytecode, forwarderInitCode } from "./contracts/artifacts";

/**
 * Deposit addresses for EVM invoices, computed without any RPC: each invoice's address is
 * CREATE2(factory, forwarderSalt(invoiceId), keccak256(forwarderInitCode)), so it is known (and can
 * be shown to the payer) long before anything is deployed there. See contracts/ForwarderFactory.sol
 * for the sweep that empties them.
 */

/**
 * The deterministic deployment proxy (Arachnid's CREATE2 deployer), at the same address on anvil,
 * Ethereum, BSC and most EVM chains. A transaction to it whose data is salt (32 bytes) followed by
 * init code deploys that init code with CREATE2, so the factory lands at the same address on every
 * chain for the same receiver.
 */
export const DETERMINISTIC_DEPLOYER: Address = "0x4e59b44847b379578588920cA78FbF26c0B4956C";

/** The salt the factory is deployed with through {@link DETERMINISTIC_DEPLOYER}. */
export const FACTORY_SALT: Hex = zeroHash;

/** Prefix hashed with the invoice id into a forwarder salt; changing it moves every deposit address. */
export const FORWARDER_SALT_DOMAIN = "express-crypto-pay:forwarder:";

/** keccak256 of the forwarder's creation code, the third input of every deposit address. */
export const FORWARDER_INIT_CODE_HASH: Hex = keccak256(forwarderInitCode);

/**
 * The factory's creation code with its constructor argument: the receiver every sweep pays, which
 * is also the only account allowed to sweep. Throws on anything but an address other than zero.
 */
export function factoryInitCode(receiver: Address): Hex {
  return encodeDeployData({ abi: forwarderFactoryAbi, bytecode: forwarderFactoryBytecode, args: [checkReceiver(receiver)] });
}

/**
 * The address the factory of `receiver` has (or will have) once deployed through
 * {@link DETERMINISTIC_DEPLOYER} with {@link FACTORY_SALT}: the same on every chain.
 */
export function factoryAddress(receiver: Address): Address {
  return getContractAddress({ opcode: "CREATE2", from: DETERMINISTIC_DEPLOYER, salt: FACTORY_SALT, bytecode: factoryInitCode(receiver) });
}

/**
 * The `data` of the transaction to {@link DETERMINISTIC_DEPLOYER} that deploys the factory of
 * `receiver` at {@link factoryAddress}. Anyone may send it; sending it twice fails harmlessly
 * (the address already has code).
 */
export function factoryDeploymentData(receiver: Address): Hex {
  return concat([FACTORY_SALT, factoryInitCode(receiver)]);
}

/**
 * The CREATE2 salt of an invoice's deposit address: keccak256 of the UTF-8 bytes of
 * {@link FORWARDER_SALT_DOMAIN} followed by the id. The domain keeps our salts apart from any
 * other use of the same factory-and-id pair. Throws on an empty id.
 */
export function forwarderSalt(invoiceId: string): Hex {
  if (invoiceId.length === 0) throw new TypeError("forwarderSalt: the invoice id is empty; every invoice needs its own deposit address.");
  return keccak256(stringToHex(FORWARDER_SALT_DOMAIN + invoiceId));
}

/**
 * The deposit address of `salt` under `factory` (checksummed), the same as the factory's own
 * `forwarderAddress(salt)` view. Throws if `salt` is not 32 bytes of hex.
 */
export function forwarderAddress(factory: Address, salt: Hex): Address {
  return getContractAddress({ opcode: "CREATE2", from: getAddress(factory), salt: checkSalt(salt), bytecodeHash: FORWARDER_INIT_CODE_HASH });
}

/**
 * Calldata of `sweep(token, salts)`, to be sent to the factory by the receiver. `token` null sweeps
 * the native coin. Addresses with nothing to sweep are skipped by the contract, so the list may
 * contain unpaid or already swept salts.
 */
export function sweepCallData(token: Address | null, salts: readonly Hex[]): Hex {
  return encodeFunctionData({ abi: forwarderFactoryAbi, functionName: "sweep", args: [tokenArg(token), salts.map(checkSalt)] });
}

/**
 * Calldata of `balancesOf(token, accounts)`, for one eth_call to the factory that reads the
 * balances of many deposit addresses (`token` null: the native coin). Decode the answer with
 * {@link decodeBalancesOf}.
 */
export function balancesOfCallData(token: Address | null, accounts: readonly Address[]): Hex {
  return encodeFunctionData({ abi: forwarderFactoryAbi, functionName: "balancesOf", args: [tokenArg(token), accounts.map((a) => getAddress(a))] });
}

/**
 * The balances in the return data of a `balancesOf` eth_call, in the order the accounts were given.
 * Throws on empty data, which is what an eth_call to an address without code answers.
 */
export function decodeBalancesOf(data: Hex): readonly bigint[] {
  if (data === "0x")
    throw new Error("balancesOf returned no data: the factory is probably not deployed at that address on this chain (deploy it with factoryDeploymentData).");
  return decodeFunctionResult({ abi: forwarderFactoryAbi, functionName: "balancesOf", data });
}

function tokenArg(token: Address | null): Address {
  if (token === null) return zeroAddress;
  if (!isAddress(token, { strict: false })) throw new TypeError(`not a token address: ${String(token)}`);
  if (token === zeroAddress) throw new TypeError("token address(0): pass null for the native coin, so that a missing token address is never read as ETH.");
  return getAddress(token);
}

function checkReceiver(receiver: Address): Address {
  if (!isAddress(receiver, { strict: false })) throw new TypeError(`the factory's receiver is not an address: ${String(receiver)}`);
  if (receiver === zeroAddress) throw new TypeError("the factory's receiver is address(0): swept money would be burnt.");
  return getAddress(receiver);
}

function checkSalt(salt: Hex): Hex {
  if (!isHex(salt, { strict: true }) || salt.length !== 66)
    throw new TypeError(`a forwarder salt is 32 bytes of hex (see forwarderSalt), got: ${String(salt)}`);
  return salt;
}
