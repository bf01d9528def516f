import { PaymentError } from "../../errors";
import type { CoreContext } from "../context";
import type { ChainAdapter } from "../ports/chain";

/**
 * Destinations that are well-formed but cannot receive: the contract of a token. A token
 * contract does not hold transfers made to it for anyone (10 USDT sent to the USDT contract are
 * lost for good), and none of the contracts listed is a wallet, so a payout, refund or claim to
 * the contract of any token on its network is refused, whichever coin is sent: the token's own
 * contract, or another listed one (USDC's while paying USDT, or the network's coin).
 */

/** An address as compared: EVM hex without its checksum case, any other form exactly. */
const comparable = (address: string): string => (/^0x[0-9a-fA-F]{40}$/.test(address) ? address.toLowerCase() : address);

/**
 * The token contracts on `network`: those the currency list names there, and those the chain
 * adapter serves (its own list may differ from the currency list's, e.g. on a test chain).
 */
function tokenContractsOn(context: CoreContext, chain: ChainAdapter, network: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const currency of context.currencies.currencies) {
    const contract = currency.networks.find((entry) => entry.network === network)?.tokenContract;
    if (contract !== undefined) found.set(comparable(contract), currency.symbol);
  }
  // The adapter's own come last: on a test chain they are the contracts that really exist.
  for (const { coin, contract } of chain.tokenContracts?.(network) ?? []) found.set(comparable(contract), coin);
  return found;
}

/**
 * Refuses (400 `token_contract_destination`, naming the token) a payout, refund or claim to a
 * token contract on `network`. Call it before anything is debited.
 */
export function refuseTokenContractDestination(context: CoreContext, chain: ChainAdapter, network: string, address: string): void {
  const token = tokenContractsOn(context, chain, network).get(comparable(address.trim()));
  if (token === undefined) return;
  throw new PaymentError(
    "token_contract_destination",
    `"${address}" is the ${token} token contract on ${network}, not a wallet: what is sent to a token contract is lost for good. Send to the recipient's own address.`,
  );
}
