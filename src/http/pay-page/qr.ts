import QRCode from "qrcode";
import type { NetworkConfig } from "../../currencies";
import { formatDecimal } from "../../money";
import { trustedHtml, type SafeHtml } from "../../html/escape";

/** BIP21 and its Litecoin twin: the coin, on its own network, and the URI scheme its wallets register. */
const BIP21_SCHEMES: Readonly<Record<string, string>> = { BTC: "bitcoin", LTC: "litecoin" };

/**
 * What of a network a wallet link needs: from the currency list in test mode, from the serving
 * chain in live mode. `native` says the coin is the chain's own (asked for by `value`); left
 * out, the coin whose symbol is the network's code is (ETH on ETH).
 */
export type WalletNetwork = Pick<NetworkConfig, "network" | "chainId" | "tokenContract"> & { native?: boolean };

/**
 * The link a wallet opens with the address and the amount filled in, or null when the coin has
 * no standard one; `units` is the amount still to pay, in the coin's smallest units.
 *
 * - Bitcoin and Litecoin on their own networks, BIP21: `bitcoin:<address>?amount=<BTC>`, the
 *   amount a decimal in whole coins (`20.3`), never in satoshis or exponent form.
 * - An EVM network (one with a `chainId`), EIP-681: its own coin (the coin whose symbol is the
 *   network's code, ETH on ETH) as `ethereum:<address>@<chainId>?value=<wei>`, a token (with a `tokenContract`) as
 *   `ethereum:<contract>@<chainId>/transfer?address=<address>&uint256=<units>`. EIP-681 numbers
 *   may be written `2.014e18`; plain integers are as valid, exact, and read by every wallet.
 *   The chain id is always written, so a wallet set to another chain switches rather than
 *   sending there; the scheme is `ethereum:` on BNB Smart Chain too, as EIP-681 defines it.
 * - Anything else, Tron and its TRC-20 tokens included, has no wallet link: Tron has no
 *   standard payment URI (wallets' deep links differ and carry no amount in a common form), so
 *   its QR code is the bare address, which every Tron wallet scans, and the amount is text.
 */
export function walletUri(coin: string, network: WalletNetwork, address: string, units: bigint, decimals: number): string | null {
  const target = encodeURIComponent(address);
  if (network.chainId !== undefined) {
    if (network.tokenContract !== undefined) {
      const transfer = `ethereum:${network.tokenContract}@${network.chainId}/transfer?address=${target}`;
      return units > 0n ? `${transfer}&uint256=${units}` : transfer;
    }
    // Only the network's own coin (ETH on ETH) may use `value`: a coin on an EVM network without
    // its contract would otherwise ask the wallet for that many wei of the wrong coin.
    if (!(network.native ?? coin === network.network)) return null;
    return units > 0n ? `ethereum:${target}@${network.chainId}?value=${units}` : `ethereum:${target}@${network.chainId}`;
  }
  const scheme = BIP21_SCHEMES[coin];
  if (scheme === undefined || network.network !== coin || network.tokenContract !== undefined) return null;
  return units > 0n ? `${scheme}:${target}?amount=${formatDecimal(units, decimals)}` : `${scheme}:${target}`;
}

/** What the QR code holds: the wallet link when there is one, else the bare address. */
export function qrText(coin: string, network: WalletNetwork, address: string, units: bigint, decimals: number): string {
  return walletUri(coin, network, address, units, decimals) ?? address;
}

/** The QR code of `text` as inline SVG markup (a white square with black modules, no text from outside). */
export async function qrSvg(text: string): Promise<SafeHtml> {
  const svg = await QRCode.toString(text, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
  // The markup is the library's paths only; the encoded text never appears in it as text.
  // Hidden from assistive technology: its wrapper carries the accessible name.
  return trustedHtml(svg.replace("<svg ", '<svg aria-hidden="true" focusable="false" '));
}
