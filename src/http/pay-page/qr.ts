import QRCode from "qrcode";
import { formatDecimal } from "../../money";
import { trustedHtml, type SafeHtml } from "./escape";

/**
 * URI schemes of coins native to their network. A coin listed here, on that network, gets a
 * payment URI with the amount; anything else (a token such as USDT on TRX/ETH/BSC, or a coin a
 * host configured) is encoded as the bare address, because a token URI needs its contract
 * address, which the currency list does not carry. The page always shows the amount in text.
 */
const NATIVE: Readonly<Record<string, { coin: string; scheme: string; amount: "decimal" | "wei" }>> = {
  BTC: { coin: "BTC", scheme: "bitcoin", amount: "decimal" }, // BIP21: amount in BTC
  LTC: { coin: "LTC", scheme: "litecoin", amount: "decimal" },
  ETH: { coin: "ETH", scheme: "ethereum", amount: "wei" }, // EIP-681: value in wei
  TRX: { coin: "TRX", scheme: "tron", amount: "decimal" },
};

/**
 * What a wallet scans: `bitcoin:<address>?amount=<BTC>` (BIP21), `litecoin:` and `tron:` the
 * same way, `ethereum:<address>?value=<wei>` (EIP-681), and the bare address for tokens.
 * `units` is the amount still to pay, in the coin's smallest units.
 */
export function paymentUri(coin: string, network: string, address: string, units: bigint, decimals: number): string {
  const native = NATIVE[network];
  if (!native || native.coin !== coin) return address;
  const target = encodeURIComponent(address);
  if (units <= 0n) return `${native.scheme}:${target}`;
  return native.amount === "wei" ? `${native.scheme}:${target}?value=${units}` : `${native.scheme}:${target}?amount=${formatDecimal(units, decimals)}`;
}

/** The QR code of `text` as inline SVG markup (a white square with black modules, no text from outside). */
export async function qrSvg(text: string): Promise<SafeHtml> {
  const svg = await QRCode.toString(text, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
  // The markup is the library's paths only; the encoded text never appears in it as text.
  return trustedHtml(svg.replace("<svg ", '<svg aria-hidden="true" focusable="false" '));
}
