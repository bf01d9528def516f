import { describe, expect, it } from "vitest";
import { DEFAULT_CURRENCIES, type NetworkConfig } from "../../../src/currencies";
import { qrText, walletUri } from "../../../src/http/pay-page/qr";

/**
 * The wallet links of the hosted page against their specifications: BIP21's own examples, and
 * EIP-681's, read back with a parser written from EIP-681's grammar (so `value=2.014e18` and
 * our `value=2014000000000000000` are compared as the numbers they are).
 */

const network = (code: string, extra: Partial<NetworkConfig> = {}) => ({ network: code, ...extra });
const defaults = (coin: string, code: string) => DEFAULT_CURRENCIES.find((entry) => entry.symbol === coin)!.networks.find((entry) => entry.network === code)!;

/** BIP21: `bitcoinurn = "bitcoin:" bitcoinaddress [ "?" bitcoinparams ]`, `amount = *digit [ "." *digit ]`. */
const BIP21 = /^(bitcoin|litecoin):([1-9A-HJ-NP-Za-km-z0-9]+)(\?amount=(\d*(\.\d*)?))?$/;

/**
 * EIP-681: `request = "ethereum" ":" [ "pay-" ] target_address [ "@" chain_id ] [ "/" function_name ] [ "?" parameters ]`,
 * `number = [ "-" / "+" ] *DIGIT [ "." 1*DIGIT ] [ ( "e" / "E" ) [ 1*DIGIT ] ]`.
 */
function parseEip681(uri: string) {
  const match = /^ethereum:(?:pay-)?(0x[0-9a-fA-F]{40})(?:@(\d+))?(?:\/(\w+))?(?:\?(.*))?$/.exec(uri);
  if (!match) throw new Error(`not an EIP-681 URI: ${uri}`);
  const parameters = Object.fromEntries(
    (match[4] ?? "")
      .split("&")
      .filter(Boolean)
      .map((pair) => pair.split("=") as [string, string]),
  );
  return { target: match[1]!, chainId: match[2] ?? null, fn: match[3] ?? null, parameters };
}

/** An EIP-681 number as an exact integer: "2.014e18" -> 2014000000000000000n. */
function eipNumber(text: string): bigint {
  const match = /^\+?(\d*)(?:\.(\d+))?(?:[eE](\d*))?$/.exec(text);
  if (!match) throw new Error(`not an EIP-681 number: ${text}`);
  const [, whole = "", fraction = "", exponent = "0"] = match;
  const shift = Number(exponent || "0") - fraction.length;
  expect(shift).toBeGreaterThanOrEqual(0);
  return BigInt(`${whole}${fraction}` || "0") * 10n ** BigInt(shift);
}

describe("BIP21 (bitcoin:, litecoin:)", () => {
  it("matches BIP21's examples: the amount in whole coins as a plain decimal", () => {
    // BIP21: bitcoin:175tWpb8K1S7NmH4Zx6rewF9WQrcZv245W?amount=20.3&label=Luke-Jr (we send no label)
    expect(walletUri("BTC", network("BTC"), "175tWpb8K1S7NmH4Zx6rewF9WQrcZv245W", 2_030_000_000n, 8)).toBe(
      "bitcoin:175tWpb8K1S7NmH4Zx6rewF9WQrcZv245W?amount=20.3",
    );
    // BIP21: bitcoin:175tWpb8K1S7NmH4Zx6rewF9WQrcZv245W?amount=50&label=...
    expect(walletUri("BTC", network("BTC"), "175tWpb8K1S7NmH4Zx6rewF9WQrcZv245W", 5_000_000_000n, 8)).toBe(
      "bitcoin:175tWpb8K1S7NmH4Zx6rewF9WQrcZv245W?amount=50",
    );
  });

  it("writes small amounts without exponent form, and Litecoin the same way", () => {
    const uri = walletUri("BTC", network("BTC"), "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", 41_667n, 8)!;
    expect(uri).toBe("bitcoin:bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu?amount=0.00041667");
    expect(uri).toMatch(BIP21);
    expect(walletUri("LTC", network("LTC"), "ltc1qabc", 150_000_000n, 8)).toBe("litecoin:ltc1qabc?amount=1.5");
    expect(walletUri("BTC", network("BTC"), "bc1qxyz", 0n, 8)).toBe("bitcoin:bc1qxyz");
  });
});

describe("EIP-681 (ethereum:)", () => {
  it("asks for Ether as EIP-681's example does, with the chain id and the value in wei", () => {
    // EIP-681: ethereum:0xfb6916095ca1df60bb79Ce92ce3ea74c37c5d359?value=2.014e18
    const example = parseEip681("ethereum:0xfb6916095ca1df60bb79Ce92ce3ea74c37c5d359?value=2.014e18");
    const ours = walletUri("ETH", defaults("ETH", "ETH"), "0xfb6916095ca1df60bb79Ce92ce3ea74c37c5d359", 2_014_000_000_000_000_000n, 18)!;
    expect(ours).toBe("ethereum:0xfb6916095ca1df60bb79Ce92ce3ea74c37c5d359@1?value=2014000000000000000");
    const parsed = parseEip681(ours);
    expect(parsed.target).toBe(example.target);
    expect(parsed.chainId).toBe("1");
    expect(parsed.fn).toBeNull();
    expect(eipNumber(parsed.parameters.value!)).toBe(eipNumber(example.parameters.value!));
  });

  it("asks for an ERC-20 transfer as EIP-681's example does", () => {
    // EIP-681: ethereum:0x89205a3a3b2a69de6dbf7f01ed13b2108b2c43e7/transfer?address=0x8e23ee67d1332ad560396262c48ffbb01f93d052&uint256=1
    const example = "ethereum:0x89205a3a3b2a69de6dbf7f01ed13b2108b2c43e7/transfer?address=0x8e23ee67d1332ad560396262c48ffbb01f93d052&uint256=1";
    const token = network("ETH", { chainId: 1, tokenContract: "0x89205a3a3b2a69de6dbf7f01ed13b2108b2c43e7" });
    const ours = walletUri("TOKEN", token, "0x8e23ee67d1332ad560396262c48ffbb01f93d052", 1n, 0)!;
    expect(ours).toBe(example.replace("/transfer", "@1/transfer"));
    expect(parseEip681(ours)).toEqual({ ...parseEip681(example), chainId: "1" });
  });

  it("uses the mainnet chain ids and token contracts of the default currency list", () => {
    const address = "0x8e23ee67d1332ad560396262c48ffbb01f93d052";
    const usdtEth = parseEip681(walletUri("USDT", defaults("USDT", "ETH"), address, 25_000_000n, 6)!);
    expect(usdtEth).toEqual({
      target: "0xdAC17F958D2ee523a2206206994597C13D831ec7",
      chainId: "1",
      fn: "transfer",
      parameters: { address, uint256: "25000000" },
    });
    const usdtBsc = parseEip681(walletUri("USDT", defaults("USDT", "BSC"), address, 25n * 10n ** 18n, 18)!);
    expect(usdtBsc).toMatchObject({ target: "0x55d398326f99059fF775485246999027B3197955", chainId: "56", fn: "transfer" });
    // Ether on BNB Smart Chain is the BEP20 token, never BNB's own `value`.
    const ethBsc = parseEip681(walletUri("ETH", defaults("ETH", "BSC"), address, 10n ** 16n, 18)!);
    expect(ethBsc).toMatchObject({
      target: "0x2170Ed0880ac9A755fd29B2688956BD959F933F8",
      chainId: "56",
      fn: "transfer",
      parameters: { uint256: "10000000000000000" },
    });
  });

  it("never asks for a coin's amount as the network's own coin when the coin is not that coin", () => {
    // A host's coin on an EVM network without its contract: no link rather than the wrong coin.
    expect(walletUri("XYZ", network("BSC", { chainId: 56 }), "0x8e23ee67d1332ad560396262c48ffbb01f93d052", 1n, 18)).toBeNull();
    // A chain that says the coin is its own (BNB on BSC, from evmChain) gets `value`.
    expect(walletUri("BNB", { ...network("BSC", { chainId: 56 }), native: true }, "0x8e23ee67d1332ad560396262c48ffbb01f93d052", 5n * 10n ** 17n, 18)).toBe(
      "ethereum:0x8e23ee67d1332ad560396262c48ffbb01f93d052@56?value=500000000000000000",
    );
  });
});

describe("Tron and coins without a standard link", () => {
  it("gives no wallet link, and the QR code holds the bare address", () => {
    for (const [coin, code] of [
      ["TRX", "TRX"],
      ["USDT", "TRX"],
    ] as const) {
      expect(walletUri(coin, defaults(coin, code), "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7", 2_500_000n, 6)).toBeNull();
      expect(qrText(coin, defaults(coin, code), "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7", 2_500_000n, 6)).toBe("TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7");
    }
    expect(qrText("BTC", network("BTC"), "bc1qxyz", 1n, 8)).toBe("bitcoin:bc1qxyz?amount=0.00000001");
  });
});
