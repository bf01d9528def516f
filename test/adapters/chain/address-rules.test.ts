import { sha256 } from "@noble/hashes/sha2.js";
import { createBase58check } from "@scure/base";
import fc from "fast-check";
import { getAddress, isAddress as viemIsAddress } from "viem";
import { describe, expect, it } from "vitest";
import {
  addressFamily,
  ANY_CHAIN,
  DEFAULT_ADDRESS_FAMILIES,
  isValidAddress,
  isValidAddressOfFamily,
  type AddressFamily,
  type ChainKind,
} from "../../../src/adapters/chain/address-rules";

const any = { chain: ANY_CHAIN };

// BIP350, "Test vectors for v0-v16 native segregated witness addresses", valid list.
const BIP350_VALID: [string, ChainKind][] = [
  ["BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", "main"],
  ["tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7", "test"],
  ["bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y", "main"],
  ["BC1SW50QGDZ25J", "main"],
  ["bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs", "main"],
  ["tb1qqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesrxh6hy", "test"],
  ["tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c", "test"],
  ["bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0", "main"],
];

// BIP350's invalid list, with its reasons.
const BIP350_INVALID: [string, string][] = [
  ["tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut", "invalid human-readable part"],
  ["bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd", "Bech32 instead of Bech32m"],
  ["tb1z0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqglt7rf", "Bech32 instead of Bech32m"],
  ["BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL", "Bech32 instead of Bech32m"],
  ["bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh", "Bech32m instead of Bech32"],
  ["tb1q0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq24jc47", "Bech32m instead of Bech32"],
  ["bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4", "invalid character in checksum"],
  ["BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R", "invalid witness version"],
  ["bc1pw5dgrnzv", "invalid program length (1 byte)"],
  ["bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav", "invalid program length (41 bytes)"],
  ["BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P", "invalid program length for witness version 0"],
  ["tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq", "mixed case"],
  ["bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf", "zero padding of more than 4 bits"],
  ["tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vpggkg4j", "non-zero padding in 8-to-5 conversion"],
  ["bc1gmk9yu", "empty data section"],
];

// BIP173's invalid list, with its reasons.
const BIP173_INVALID: [string, string][] = [
  ["tc1qw508d6qejxtdg4y5r3zarvary0c5xw7kg3g4ty", "invalid human-readable part"],
  ["bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5", "invalid checksum"],
  ["BC13W508D6QEJXTDG4Y5R3ZARVARY0C5XW7KN40WF2", "invalid witness version"],
  ["bc1rw5uspcuh", "invalid program length"],
  ["bc10w508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kw5rljs90", "invalid program length"],
  ["BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P", "invalid program length for witness version 0"],
  ["tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sL5k7", "mixed case"],
  ["bc1zw508d6qejxtdg4y5r3zarvaryvqyzf3du", "zero padding of more than 4 bits"],
  ["tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3pjxtptv", "non-zero padding in 8-to-5 conversion"],
  ["bc1gmk9yu", "empty data section"],
];

// BIP173's valid v1+ addresses, written in bech32: BIP350 made them invalid (they need bech32m).
const BIP173_VALID_BEFORE_BIP350 = [
  "bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7k7grplx",
  "BC1SW50QA3JX3S",
  "bc1zw508d6qejxtdg4y5r3zarvaryvg6kdaj",
];

// Bitcoin Core's src/test/data/key_io_valid.json (testnet4 and signet are our "test").
const BITCOIN_CORE_VALID: [string, ChainKind][] = [
  ["1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2mo", "main"],
  ["36j4NfKv6Akva9amjWrLG6MuSQym1GuEmm", "main"],
  ["bc1qvyq0cc6rahyvsazfdje0twl7ez82ndmuac2lhv", "main"],
  ["bc1p83n3au0rjylefxq2nc2xh2y4jzz4pm6zxj4mw5pagdjjr2a9f36s6jjnnu", "main"],
  ["mzK2FFDEhxqHcmrJw1ysqFkVyhUULo45hZ", "test"],
  ["2NC2hEhe28ULKAJkW5MjZ3jtTMJdvXmByvK", "test"],
  ["tb1qcrh3yqn4nlleplcez2yndq2ry8h9ncg3qh7n54", "test"],
  ["tb1q3vya2h5435jkugq2few7dmktlrwq4ejmfaw7kr", "test"],
  ["n4fajahJrAuKbN7uNsKjLjQkz9Qn5ewJXQ", "regtest"],
  ["2MxFajLApXpYk4VodBSZSt7rw8y4ryABkfA", "regtest"],
  ["bcrt1qdavt4j2sd7dlhqsavtnfxvzppw6k7qy97tmnu9", "regtest"],
  ["bcrt1pfwxjqvtt4tcxrtdluukfmy2dv7xd2qzdfy6kajv5nwn4yam3wxkq3553uh", "regtest"],
];

const BIP84_RECEIVE = "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"; // m/84'/0'/0'/0/0 of "abandon ... about"
const BIP84_CHANGE = "bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g"; // m/84'/0'/0'/1/0
const BIP86_RECEIVE = "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr"; // m/86'/0'/0'/0/0, taproot
const BTC_P2PKH = "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2";
const BTC_P2SH = "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy";

// Litecoin Core's key_io_valid.json (base58 forms), Trust Wallet Core's Litecoin tests (ltc1,
// L, M) and one key's P2WPKH on the three chains (THORChain's test keys).
const LITECOIN_VALID: [string, ChainKind][] = [
  ["LT2KVaAy1ppRuxRgrS5RNU3vBsy7RibPeA", "main"],
  ["LV7LV7Z4bWDEjYkfx9dQo6k6RjGbXsg6hS", "main"],
  ["MHrYRxAiMNBTku3eoDHwhA1LQGDjUStZW2", "main"],
  ["M8eTgzhoFTErAjkGa6cyBomcHfxAprbDgD", "main"],
  ["ltc1qytnqzjknvv03jwfgrsmzt0ycmwqgl0asjnaxwu", "main"],
  ["ltc1qcgnevr9rp7aazy62m4gen0tfzlssa52axwytt6", "main"],
  ["ltc1qj08ys4ct2hzzc2hcz6h2hgrvlmsjynawmt3sjh", "main"],
  ["mwXn5Vhicdav8Av3KMokx4YNuHoGRKxtWs", "test"],
  ["QXaUgLHkZcbJb2j5XgMYzY8cF9YM48Y81Z", "test"],
  ["tltc1qj08ys4ct2hzzc2hcz6h2hgrvlmsjynawvejepa", "test"],
  ["mpWvR79tSrA5xeziB6mjNYWdaVRwBpgnUP", "regtest"],
  ["QgDNrG4nJpE4VV7PcFMFhkTgwAHWxWS7pj", "regtest"],
  ["rltc1qj08ys4ct2hzzc2hcz6h2hgrvlmsjynawf4nr3r", "regtest"],
];

// EIP-55's test vectors.
const EIP55_ALL_CAPS = ["0x52908400098527886E0F7030069857D2E4169EE7", "0x8617E340B3D01FA5F11F306F4090FD50E238070D"];
const EIP55_ALL_LOWER = ["0xde709f2102306220921060314715629080e2fb77", "0x27b1fdb04752bbc536007a920d24acb045561c26"];
const EIP55_NORMAL = [
  "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
  "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
  "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
  "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
];

const TRON_ADDRESS = "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7";
const TRON_USDT_CONTRACT = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";

const GARBAGE: [string, string][] = [
  ["a word", "not-an-address"],
  ["empty", ""],
  ["the old sandbox example", "invalid-address"],
  ["a sandbox deposit address", "sbx_trx_abcdefghijklmnopqrstuvwx"],
  ["a million characters", "a".repeat(1_000_000)],
  // The base58 decoder is quadratic: these would take minutes if they reached it.
  ["a million base58 characters", "T".repeat(1_000_000)],
  ["a million base58 ones", "1".repeat(1_000_000)],
  ["an overlong bech32 string", `bc1q${"q".repeat(10_000)}`],
  ["unicode", "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyü"],
  ["emoji", "💸💸💸💸💸💸💸💸💸💸💸💸💸💸💸💸💸💸💸💸💸"],
  ["a NUL", "\u0000"],
  ["an address with a NUL after it", `${BIP84_RECEIVE}\u0000`],
  ["an address with spaces around it", ` ${TRON_ADDRESS} `],
  ["an address with a newline after it", `${EIP55_NORMAL[0]}\n`],
  ["a lone surrogate", "\ud800".repeat(34)],
];

const FAMILIES: AddressFamily[] = ["evm", "bitcoin", "litecoin", "tron"];

describe("addressFamily", () => {
  it("knows the networks of the default currency list", () => {
    expect(addressFamily("BTC")).toBe("bitcoin");
    expect(addressFamily("LTC")).toBe("litecoin");
    expect(addressFamily("ETH")).toBe("evm");
    expect(addressFamily("BSC")).toBe("evm");
    expect(addressFamily("TRX")).toBe("tron");
  });

  it("knows common EVM network codes a host may configure, in any case", () => {
    for (const code of ["POLYGON", "ARBITRUM", "BASE", "OP", "AVAXC", "polygon", "Eth"]) expect(addressFamily(code)).toBe("evm");
  });

  it("answers null for a network with no rule, leaving the decision to the caller", () => {
    expect(addressFamily("DOGE")).toBeNull();
    expect(addressFamily("My Net/2")).toBeNull();
    expect(addressFamily("")).toBeNull();
    expect(isValidAddress("DOGE", "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L")).toBe(false);
  });

  it("does not mistake inherited object keys for network codes", () => {
    for (const code of ["constructor", "__proto__", "toString", "hasOwnProperty"]) expect(addressFamily(code)).toBeNull();
  });

  it("uses a host's own table, which may extend the default one", () => {
    const families = { ...DEFAULT_ADDRESS_FAMILIES, GNOSIS: "evm" as const };
    expect(addressFamily("GNOSIS", families)).toBe("evm");
    expect(addressFamily("GNOSIS")).toBeNull();
    expect(isValidAddress("GNOSIS", EIP55_NORMAL[0]!, { families })).toBe(true);
    expect(isValidAddress("GNOSIS", EIP55_NORMAL[0]!)).toBe(false);
  });

  it("keeps the default table frozen", () => {
    expect(Object.isFrozen(DEFAULT_ADDRESS_FAMILIES)).toBe(true);
    expect(Object.isFrozen(ANY_CHAIN)).toBe(true);
  });
});

describe("Bitcoin addresses", () => {
  it.each(BIP350_VALID)("accepts BIP350's valid %s on %s", (address, chain) => {
    expect(isValidAddress("BTC", address, { chain })).toBe(true);
  });

  it.each(BIP350_INVALID)("refuses BIP350's %s (%s)", (address) => {
    expect(isValidAddress("BTC", address, any)).toBe(false);
  });

  it.each(BIP173_INVALID)("refuses BIP173's %s (%s)", (address) => {
    expect(isValidAddress("BTC", address, any)).toBe(false);
  });

  it.each(BIP173_VALID_BEFORE_BIP350)("refuses the v1+ address %s written in bech32 instead of bech32m", (address) => {
    expect(isValidAddress("BTC", address, any)).toBe(false);
  });

  it.each(BITCOIN_CORE_VALID)("accepts Bitcoin Core's %s on %s", (address, chain) => {
    expect(isValidAddress("BTC", address, { chain })).toBe(true);
  });

  it("accepts the BIP84 and BIP86 addresses of the test mnemonic", () => {
    expect(isValidAddress("BTC", BIP84_RECEIVE)).toBe(true);
    expect(isValidAddress("BTC", BIP84_CHANGE)).toBe(true);
    expect(isValidAddress("BTC", BIP86_RECEIVE)).toBe(true);
  });

  it("accepts mainnet P2PKH and P2SH, and an all-uppercase bech32 address", () => {
    expect(isValidAddress("BTC", BTC_P2PKH)).toBe(true);
    expect(isValidAddress("BTC", BTC_P2SH)).toBe(true);
    expect(isValidAddress("BTC", BIP84_RECEIVE.toUpperCase())).toBe(true);
  });

  it("refuses a P2PKH or bech32 address with one character changed", () => {
    expect(isValidAddress("BTC", "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3")).toBe(false);
    expect(isValidAddress("BTC", "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLz")).toBe(false);
    expect(isValidAddress("BTC", "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyv")).toBe(false);
  });

  it("accepts only the chains asked for, main by default", () => {
    const testnet = "tb1qcrh3yqn4nlleplcez2yndq2ry8h9ncg3qh7n54";
    const regtest = "bcrt1qdavt4j2sd7dlhqsavtnfxvzppw6k7qy97tmnu9";
    expect(isValidAddress("BTC", testnet)).toBe(false);
    expect(isValidAddress("BTC", "mzK2FFDEhxqHcmrJw1ysqFkVyhUULo45hZ")).toBe(false);
    expect(isValidAddress("BTC", regtest, { chain: "test" })).toBe(false);
    expect(isValidAddress("BTC", BIP84_RECEIVE, { chain: "regtest" })).toBe(false);
    expect(isValidAddress("BTC", BTC_P2PKH, { chain: ["test", "regtest"] })).toBe(false);
    expect(isValidAddress("BTC", regtest, { chain: ["test", "regtest"] })).toBe(true);
    for (const address of [testnet, regtest, BIP84_RECEIVE, BTC_P2SH]) expect(isValidAddress("BTC", address, any)).toBe(true);
    expect(isValidAddress("BTC", BIP84_RECEIVE, { chain: [] })).toBe(false);
  });

  it("refuses Litecoin addresses", () => {
    for (const [address] of LITECOIN_VALID.filter(([, chain]) => chain === "main")) expect(isValidAddress("BTC", address, any)).toBe(false);
    expect(isValidAddress("BTC", "QXaUgLHkZcbJb2j5XgMYzY8cF9YM48Y81Z", any)).toBe(false);
    expect(isValidAddress("BTC", "tltc1qj08ys4ct2hzzc2hcz6h2hgrvlmsjynawvejepa", any)).toBe(false);
    expect(isValidAddress("BTC", "rltc1qj08ys4ct2hzzc2hcz6h2hgrvlmsjynawf4nr3r", any)).toBe(false);
  });

  it("refuses an all-zero hash, which no one holds a key for", () => {
    // base58check of version 0x00 and 20 zero bytes.
    expect(createBase58check(sha256).encode(new Uint8Array(21))).toBe("1111111111111111111114oLvT2");
    expect(isValidAddress("BTC", "1111111111111111111114oLvT2")).toBe(false);
  });
});

describe("Litecoin addresses", () => {
  it.each(LITECOIN_VALID)("accepts %s on %s", (address, chain) => {
    expect(isValidAddress("LTC", address, { chain })).toBe(true);
    expect(isValidAddress("LTC", address, any)).toBe(true);
  });

  it("refuses each chain's addresses on the other chains", () => {
    expect(isValidAddress("LTC", "tltc1qj08ys4ct2hzzc2hcz6h2hgrvlmsjynawvejepa")).toBe(false);
    expect(isValidAddress("LTC", "QgDNrG4nJpE4VV7PcFMFhkTgwAHWxWS7pj")).toBe(false);
    expect(isValidAddress("LTC", "rltc1qj08ys4ct2hzzc2hcz6h2hgrvlmsjynawf4nr3r", { chain: "test" })).toBe(false);
    expect(isValidAddress("LTC", "LT2KVaAy1ppRuxRgrS5RNU3vBsy7RibPeA", { chain: "regtest" })).toBe(false);
  });

  it("refuses Bitcoin addresses, the BIP vectors included", () => {
    for (const address of [BTC_P2PKH, BTC_P2SH, BIP84_RECEIVE, BIP86_RECEIVE, ...BIP350_VALID.map(([a]) => a)]) {
      expect(isValidAddress("LTC", address, any)).toBe(false);
    }
    for (const [address] of BITCOIN_CORE_VALID.filter(([a]) => !/^[mn]/.test(a))) expect(isValidAddress("LTC", address, any)).toBe(false);
  });

  it("refuses the legacy 3... form of a P2SH script and accepts its M... form", () => {
    // The same script hash, from python-litecointx's README.
    expect(isValidAddress("LTC", "3F1c6UWAs9RLN2Mbt5bAJue12VhVCorXzs", any)).toBe(false);
    expect(isValidAddress("LTC", "MMDkQMv8pGGmAXdVyxaW8YtQMCHw7eouma")).toBe(true);
    expect(isValidAddress("BTC", "3F1c6UWAs9RLN2Mbt5bAJue12VhVCorXzs")).toBe(true);
  });

  it("accepts a test-chain P2PKH for both coins, as Bitcoin and Litecoin share its version byte", () => {
    for (const address of ["mwXn5Vhicdav8Av3KMokx4YNuHoGRKxtWs", "mzK2FFDEhxqHcmrJw1ysqFkVyhUULo45hZ"]) {
      expect(isValidAddress("LTC", address, { chain: "test" })).toBe(true);
      expect(isValidAddress("BTC", address, { chain: "test" })).toBe(true);
      expect(isValidAddress("LTC", address)).toBe(false);
    }
  });

  it("refuses an address with one character changed", () => {
    expect(isValidAddress("LTC", "ltc1qytnqzjknvv03jwfgrsmzt0ycmwqgl0asjnaxwv")).toBe(false);
    expect(isValidAddress("LTC", "LT2KVaAy1ppRuxRgrS5RNU3vBsy7RibPeB")).toBe(false);
    expect(isValidAddress("LTC", "MHrYRxAiMNBTku3eoDHwhA1LQGDjUStZW3")).toBe(false);
  });
});

describe("EVM addresses", () => {
  it.each([...EIP55_NORMAL, ...EIP55_ALL_LOWER, ...EIP55_ALL_CAPS])("accepts EIP-55's %s", (address) => {
    expect(isValidAddress("ETH", address)).toBe(true);
    expect(isValidAddress("BSC", address)).toBe(true);
  });

  it("accepts the lowercase form of a checksummed address", () => {
    for (const address of EIP55_NORMAL) expect(isValidAddress("ETH", address.toLowerCase())).toBe(true);
  });

  it("refuses a mixed-case address whose checksum is wrong", () => {
    expect(isValidAddress("ETH", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD")).toBe(false);
    expect(isValidAddress("ETH", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAEd")).toBe(false);
    expect(isValidAddress("ETH", "0xfb6916095ca1df60bB79Ce92cE3Ea74c37c5d359")).toBe(false);
  });

  it("refuses an all-uppercase address unless it is its own checksum", () => {
    for (const address of EIP55_NORMAL) expect(isValidAddress("ETH", `0x${address.slice(2).toUpperCase()}`)).toBe(false);
  });

  it("refuses the zero address, where a payout burns the money", () => {
    expect(isValidAddress("ETH", "0x0000000000000000000000000000000000000000")).toBe(false);
    expect(isValidAddress("BSC", "0x0000000000000000000000000000000000000000")).toBe(false);
    expect(isValidAddress("ETH", "0x0000000000000000000000000000000000000001")).toBe(true);
  });

  it.each([
    ["with a 0X prefix", "0X5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"],
    ["without a prefix", "5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"],
    ["one digit short", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe"],
    ["one digit long", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed0"],
    ["with a non-hex digit", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaeg"],
    ["a 32-byte hex string", `0x${"ab".repeat(32)}`],
    ["a TRON address", TRON_ADDRESS],
  ])("refuses an address %s", (_label, address) => {
    expect(isValidAddress("ETH", address)).toBe(false);
  });

  it("agrees with viem's strict isAddress on random addresses and case patterns, the zero address aside", () => {
    const address = fc
      .tuple(
        fc.uint8Array({ minLength: 20, maxLength: 20 }),
        fc.constantFrom("lower", "upper", "checksum", "random"),
        fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
      )
      .map(([bytes, style, flips]) => {
        const lower = Buffer.from(bytes).toString("hex");
        if (style === "lower") return `0x${lower}`;
        if (style === "upper") return `0x${lower.toUpperCase()}`;
        // Checksummed by viem, an implementation other than ours.
        const checksummed = getAddress(`0x${lower}`);
        if (style === "checksum") return checksummed;
        const digits = checksummed
          .slice(2)
          .split("")
          .map((c, i) => (flips[i] ? (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) : c));
        return `0x${digits.join("")}`;
      });
    fc.assert(
      fc.property(address, (candidate) => {
        const zero = /^0x0{40}$/.test(candidate);
        expect(isValidAddress("ETH", candidate)).toBe(!zero && viemIsAddress(candidate, { strict: true }));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("TRON addresses", () => {
  it("accepts valid T... addresses", () => {
    expect(isValidAddress("TRX", TRON_ADDRESS)).toBe(true);
    expect(isValidAddress("TRX", TRON_USDT_CONTRACT)).toBe(true);
  });

  it("ignores the chain option, as every TRON chain writes addresses alike", () => {
    expect(isValidAddress("TRX", TRON_ADDRESS, { chain: "test" })).toBe(true);
    expect(isValidAddress("TRX", TRON_ADDRESS, any)).toBe(true);
  });

  it.each([
    ["with one character changed", "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU8"],
    ["with two characters swapped", "TLa2f6VPqDgRE67v1736s7bJ8Ray5wjYU7"],
    ["in lowercase", TRON_ADDRESS.toLowerCase()],
    ["one character short", TRON_ADDRESS.slice(0, -1)],
    ["in hex", "41a614f803b6fd780986a42c78ec9c7f77e6ded13c"],
    ["a Bitcoin address", BTC_P2PKH],
    ["an Ethereum address", EIP55_NORMAL[0]!],
    ["the old sandbox example", "TXyz12345678"],
  ])("refuses an address %s", (_label, address) => {
    expect(isValidAddress("TRX", address)).toBe(false);
  });

  it("refuses the all-zero account, where a payout burns the money", () => {
    const zero = new Uint8Array(21);
    zero[0] = 0x41;
    expect(createBase58check(sha256).encode(zero)).toBe("T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb");
    expect(isValidAddress("TRX", "T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb")).toBe(false);
  });

  it("refuses base58check of the right size with another version byte", () => {
    const other = new Uint8Array(21).fill(7);
    other[0] = 0x42;
    expect(isValidAddress("TRX", createBase58check(sha256).encode(other))).toBe(false);
  });
});

describe("garbage", () => {
  it.each(GARBAGE)("refuses %s on every network without throwing", (_label, address) => {
    for (const family of FAMILIES) expect(isValidAddressOfFamily(family, address, any)).toBe(false);
  });

  it("refuses values that are not strings, as a JavaScript caller may pass them", () => {
    for (const value of [null, undefined, 42, {}, [BIP84_RECEIVE], Symbol("x")]) {
      for (const family of FAMILIES) expect(isValidAddressOfFamily(family, value as unknown as string, any)).toBe(false);
      expect(addressFamily(value as unknown as string)).toBeNull();
    }
  });

  it("refuses an unknown family or chain instead of throwing", () => {
    expect(isValidAddressOfFamily("solana" as AddressFamily, BIP84_RECEIVE)).toBe(false);
    expect(isValidAddress("BTC", BIP84_RECEIVE, { chain: "mainnet" as ChainKind })).toBe(false);
  });

  it("never throws, whatever the string", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 120 }), fc.constantFrom(...FAMILIES), (text, family) => {
        expect(typeof isValidAddressOfFamily(family, text, any)).toBe("boolean");
      }),
      { numRuns: 3000 },
    );
  });
});
