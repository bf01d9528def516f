import { bech32, bech32m, createBase58check, hex } from "@scure/base";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { Address, NETWORK, OutScript, TEST_NETWORK, WIF, p2wpkh } from "@scure/btc-signer";
import { sha256 } from "@noble/hashes/sha2.js";
import { describe, expect, it } from "vitest";
import { isValidAddressOfFamily, type ChainKind } from "../../../../src/adapters/chain/address-rules";
import { addressOfScript, deriveAddress, derivePrivateKey, parseAccountKey, sameAccount, scriptOf } from "../../../../src/adapters/chain/bitcoin/keys";
import {
  EXTENDED_KEY_VERSIONS,
  addressParams,
  chainKindOfNode,
  coinType,
  extendedKeyVersion,
  type CoinFamily,
} from "../../../../src/adapters/chain/bitcoin/params";

/** BIP84's test mnemonic, and the vectors BIP84 and SLIP-132 publish for it. */
const MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const BIP84 = {
  zpub: "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs",
  zprv: "zprvAdG4iTXWBoARxkkzNpNh8r6Qag3irQB8PzEMkAFeTRXxHpbF9z4QgEvBRmfvqWvGp42t42nvgGpNgYSJA9iefm1yYNZKEm7z6qUWCroSQnE",
  receive0: "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu",
  receive0Wif: "KyZpNDKnfs94vbrwhJneDi77V6jF64PWPF8x5cdJb8ifgg2DUc9d",
  receive1: "bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g",
  change0: "bc1q8c6fshw2dlwun7ekn9qwf37cu2rn755upcp6el",
};
/** m/84'/1'/0' of the same mnemonic: the testnet vector many wallets' test suites share. */
const BIP84_TEST = {
  vpub: "vpub5Y6cjg78GGuNLsaPhmYsiw4gYX3HoQiRBiSwDaBXKUafCt9bNwWQiitDk5VZ5BVxYnQdwoTyXSs2JHRPAgjAvtbBrf8ZhDYe2jWAqvZVnsc",
  receive0: "tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl",
  // Litecoin Core 0.21.2.1 regtest: deriveaddresses "wpkh(<tpub of m/84'/1'/0'>/0/*)" [0,1] and ".../1/*" [0,0].
  rltcReceive0: "rltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9puuzgkg",
  rltcReceive1: "rltc1qd7spv5q28348xl4myc8zmh983w5jx32cwn4h9f",
  rltcChange0: "rltc1q9u62588spffmq4dzjxsr5l297znf3z6jg9f78s",
  // The same node: validateaddress rltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9puuzgkg.
  script0: "0014d0c4a3ef09e997b6e99e397e518fe3e41a118ca1",
};

const VERSIONS = {
  xpub: { public: 0x0488b21e, private: 0x0488ade4 },
  tpub: { public: 0x043587cf, private: 0x04358394 },
  zpub: { public: 0x04b24746, private: 0x04b2430c },
  vpub: { public: 0x045f1cf6, private: 0x045f18bc },
  Ltub: { public: 0x019da462, private: 0x019d9cfe },
  Mtub: { public: 0x01b26ef6, private: 0x01b26792 },
  ttub: { public: 0x0436f6e1, private: 0x0436ef7d },
  ypub: { public: 0x049d7cb2, private: 0x049d7878 },
} as const;

const root = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC));
const base58check = createBase58check(sha256);

/** The key at `path` of the test mnemonic, serialised with `versions` (public unless `asPrivate`). */
function serialise(path: string, versions: { public: number; private: number }, asPrivate = false): string {
  const node = root.derive(path);
  const key = new HDKey({
    versions,
    depth: node.depth,
    index: node.index,
    parentFingerprint: node.parentFingerprint,
    chainCode: node.chainCode!,
    ...(asPrivate ? { privateKey: node.privateKey! } : { publicKey: node.publicKey! }),
  });
  return asPrivate ? key.privateExtendedKey : key.publicExtendedKey;
}

/** The TypeError `parse` throws, checked to show no part of `text` (a 12-character window). */
function refusal(parse: () => unknown, text: string): TypeError {
  let error: unknown;
  try {
    parse();
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(TypeError);
  const message = (error as TypeError).message;
  // Windows over the first 200 characters: enough to cover any key (111 or 112 characters).
  const body = text.trim().slice(0, 200);
  for (let i = 0; i + 12 <= body.length; i++) expect(message).not.toContain(body.slice(i, i + 12));
  return error as TypeError;
}

function witnessProgram(address: string): { prefix: string; program: string } {
  const { prefix, words } = bech32.decode(address as `${string}1${string}`);
  return { prefix, program: hex.encode(bech32.fromWords(words.slice(1))) };
}

describe("addressParams", () => {
  it("gives btc-signer's own Bitcoin mainnet and testnet objects' values", () => {
    expect(addressParams("bitcoin", "main")).toEqual(NETWORK);
    expect(addressParams("bitcoin", "test")).toEqual(TEST_NETWORK);
    expect(addressParams("bitcoin", "regtest")).toEqual({ ...TEST_NETWORK, bech32: "bcrt" });
  });

  it("gives Litecoin Core's chainparams", () => {
    expect(addressParams("litecoin", "main")).toEqual({ bech32: "ltc", pubKeyHash: 0x30, scriptHash: 0x32, wif: 0xb0 });
    expect(addressParams("litecoin", "test")).toEqual({ bech32: "tltc", pubKeyHash: 0x6f, scriptHash: 0x3a, wif: 0xef });
    expect(addressParams("litecoin", "regtest")).toEqual({ bech32: "rltc", pubKeyHash: 0x6f, scriptHash: 0x3a, wif: 0xef });
  });

  it("returns frozen shared objects", () => {
    expect(Object.isFrozen(addressParams("litecoin", "main"))).toBe(true);
    expect(addressParams("bitcoin", "main")).toBe(addressParams("bitcoin", "main"));
  });

  it("refuses an unknown family or chain", () => {
    expect(() => addressParams("dogecoin" as CoinFamily, "main")).toThrow(TypeError);
    expect(() => addressParams("bitcoin", "signet" as ChainKind)).toThrow(TypeError);
    expect(() => addressParams("bitcoin", "toString" as ChainKind)).toThrow(TypeError);
  });
});

describe("chainKindOfNode", () => {
  it("maps every chain name Bitcoin Core and Litecoin Core report", () => {
    expect(chainKindOfNode("main")).toBe("main");
    expect(chainKindOfNode("test")).toBe("test");
    expect(chainKindOfNode("testnet4")).toBe("test");
    expect(chainKindOfNode("signet")).toBe("test");
    expect(chainKindOfNode("regtest")).toBe("regtest");
  });

  it("answers null for a name it does not know", () => {
    expect(chainKindOfNode("mainnet")).toBeNull();
    expect(chainKindOfNode("")).toBeNull();
  });
});

describe("EXTENDED_KEY_VERSIONS", () => {
  it("lists version bytes that encode their kind's prefix", () => {
    expect(EXTENDED_KEY_VERSIONS).toHaveLength(14);
    for (const entry of EXTENDED_KEY_VERSIONS) {
      const text = serialise("m/84'/0'/0'", entry.versions, entry.isPrivate);
      expect(text.slice(0, 4), entry.kind).toBe(entry.kind);
      expect(entry.version).toBe(entry.isPrivate ? entry.versions.private : entry.versions.public);
    }
  });

  it("marks zpub and vpub as BIP84, Mtub as BIP49 and the others as generic", () => {
    const conventions = Object.fromEntries(EXTENDED_KEY_VERSIONS.map((entry) => [entry.kind, entry.convention]));
    expect(conventions).toEqual({
      xpub: "generic",
      xprv: "generic",
      tpub: "generic",
      tprv: "generic",
      zpub: "bip84",
      zprv: "bip84",
      vpub: "bip84",
      vprv: "bip84",
      Ltub: "generic",
      Ltpv: "generic",
      Mtub: "bip49",
      Mtpv: "bip49",
      ttub: "generic",
      ttpv: "generic",
    });
  });

  it("finds an entry by version bytes, and none for ypub", () => {
    expect(extendedKeyVersion(0x04b24746)?.kind).toBe("zpub");
    expect(extendedKeyVersion(0x0436ef7d)?.kind).toBe("ttpv");
    expect(extendedKeyVersion(VERSIONS.ypub.public)).toBeNull();
  });

  it("gives SLIP-44 coin types", () => {
    expect(coinType("bitcoin", "main")).toBe(0);
    expect(coinType("litecoin", "main")).toBe(2);
    expect(coinType("litecoin", "regtest")).toBe(1);
  });
});

describe("parseAccountKey", () => {
  it("parses BIP84's account zpub as a public mainnet key", () => {
    const parsed = parseAccountKey(BIP84.zpub, "bitcoin");
    expect(parsed).toMatchObject({ isPrivate: false, chains: ["main"], kind: "zpub" });
    expect(parsed.key.depth).toBe(3);
    expect(parsed.key.publicExtendedKey).toBe(BIP84.zpub);
  });

  it("parses the account zprv derived from the mnemonic, whose zpub is the BIP84 vector", () => {
    const zprv = serialise("m/84'/0'/0'", VERSIONS.zpub, true);
    expect(zprv).toBe(BIP84.zprv);
    const parsed = parseAccountKey(zprv, "bitcoin");
    expect(parsed).toMatchObject({ isPrivate: true, chains: ["main"], kind: "zprv" });
    expect(parsed.key.publicExtendedKey).toBe(BIP84.zpub);
  });

  it("ignores whitespace around the key", () => {
    expect(parseAccountKey(`  ${BIP84.zpub}\n`, "bitcoin").kind).toBe("zpub");
  });

  it("gives the same addresses for the same account written as xpub and as zpub", () => {
    const xpub = serialise("m/84'/0'/0'", VERSIONS.xpub);
    expect(xpub.startsWith("xpub")).toBe(true);
    const params = addressParams("bitcoin", "main");
    const fromXpub = parseAccountKey(xpub, "bitcoin");
    expect(fromXpub.kind).toBe("xpub");
    expect(deriveAddress(fromXpub.key, 0, 0, params)).toBe(BIP84.receive0);
    expect(deriveAddress(fromXpub.key, 1, 0, params)).toBe(BIP84.change0);
  });

  it("parses testnet vpub and tpub for the test chains, giving tb1 and bcrt1 addresses", () => {
    const vpub = serialise("m/84'/1'/0'", VERSIONS.vpub);
    expect(vpub).toBe(BIP84_TEST.vpub);
    const tpub = serialise("m/84'/1'/0'", VERSIONS.tpub);
    for (const text of [vpub, tpub]) {
      const parsed = parseAccountKey(text, "bitcoin");
      expect(parsed.chains).toEqual(["test", "regtest"]);
      expect(deriveAddress(parsed.key, 0, 0, addressParams("bitcoin", "test"))).toBe(BIP84_TEST.receive0);
      const regtest = deriveAddress(parsed.key, 0, 0, addressParams("bitcoin", "regtest"));
      expect(regtest.startsWith("bcrt1q")).toBe(true);
      expect(witnessProgram(regtest).program).toBe(witnessProgram(BIP84_TEST.receive0).program);
    }
  });

  it("accepts Litecoin's Ltub, Mtub and ttub, and Bitcoin's serialisations, for Litecoin", () => {
    const cases: Array<[string, keyof typeof VERSIONS, ChainKind[]]> = [
      ["m/84'/2'/0'", "Ltub", ["main"]],
      ["m/84'/2'/0'", "Mtub", ["main"]],
      ["m/84'/1'/0'", "ttub", ["test", "regtest"]],
      ["m/84'/2'/0'", "xpub", ["main"]],
      ["m/84'/2'/0'", "zpub", ["main"]],
      ["m/84'/1'/0'", "tpub", ["test", "regtest"]],
      ["m/84'/1'/0'", "vpub", ["test", "regtest"]],
    ];
    for (const [path, kind, chains] of cases) {
      const text = serialise(path, VERSIONS[kind]);
      expect(text.slice(0, 4)).toBe(kind);
      const parsed = parseAccountKey(text, "litecoin");
      expect(parsed, kind).toMatchObject({ kind, chains, isPrivate: false });
      // Re-serialised with the same versions, the key is the text it was parsed from.
      expect(parsed.key.publicExtendedKey).toBe(text);
    }
    expect(parseAccountKey(serialise("m/84'/2'/0'", VERSIONS.Ltub, true), "litecoin")).toMatchObject({ kind: "Ltpv", isPrivate: true });
  });

  it("refuses Litecoin's serialisations for Bitcoin", () => {
    for (const kind of ["Ltub", "Mtub", "ttub"] as const) {
      const text = serialise("m/84'/0'/0'", VERSIONS[kind]);
      expect(refusal(() => parseAccountKey(text, "bitcoin"), text).message).toMatch(new RegExp(`${kind}.*litecoin.*bitcoin`));
    }
    const ltpv = serialise("m/84'/0'/0'", VERSIONS.Ltub, true);
    refusal(() => parseAccountKey(ltpv, "bitcoin"), ltpv);
  });

  it("refuses a master key, saying an account key at depth 3 is expected and how to export it", () => {
    const master = root.privateExtendedKey;
    const error = refusal(() => parseAccountKey(master, "bitcoin", "bitcoinChain: hotWallet"), master);
    expect(error.message).toMatch(/^bitcoinChain: hotWallet is a master \(root\) key/);
    expect(error.message).toContain("depth 3");
    expect(error.message).toContain("m/84'/0'/0'");
    expect(error.message).toMatch(/Export the account's extended public key/);
    const masterPub = root.publicExtendedKey;
    refusal(() => parseAccountKey(masterPub, "bitcoin"), masterPub);
  });

  it("refuses keys below the account level, naming their level and the test path on test chains", () => {
    const branch = serialise("m/84'/1'/0'/0", VERSIONS.vpub);
    expect(refusal(() => parseAccountKey(branch, "bitcoin"), branch).message).toMatch(/branch-level key.*m\/84'\/1'\/0'/);
    const address = serialise("m/84'/2'/0'/0/0", VERSIONS.Ltub);
    expect(refusal(() => parseAccountKey(address, "litecoin"), address).message).toMatch(/address-level key.*m\/84'\/2'\/0'/);
    const coinLevel = serialise("m/84'/0'", VERSIONS.zpub, true);
    expect(refusal(() => parseAccountKey(coinLevel, "bitcoin"), coinLevel).message).toMatch(/coin-level key/);
  });

  it("refuses serialisations it does not accept, such as ypub", () => {
    const ypub = serialise("m/49'/0'/0'", VERSIONS.ypub);
    expect(refusal(() => parseAccountKey(ypub, "bitcoin"), ypub).message).toMatch(/0x049d7cb2.*xpub, xprv, tpub/);
  });

  it("refuses garbage with a TypeError that never shows the text", () => {
    const zprv = serialise("m/84'/0'/0'", VERSIONS.zpub, true);
    const payload = base58check.decode(zprv);
    const garbage = [
      "",
      "   ",
      "not a key",
      zprv.slice(0, -1),
      zprv.slice(0, -1) + (zprv.endsWith("a") ? "b" : "a"),
      zprv + zprv,
      "z".repeat(100_000),
      BIP84.receive0,
      base58check.encode(payload.subarray(0, 77)),
      // A zpub prefix over private key bytes: damaged or forged.
      base58check.encode(Uint8Array.from([...hex.decode("04b24746"), ...payload.subarray(4)])),
      // A public key that is not a point: 0x02 then 32 bytes of 0xff.
      base58check.encode(Uint8Array.from([...base58check.decode(BIP84.zpub).subarray(0, 45), 0x02, ...new Uint8Array(32).fill(0xff)])),
      // A private key equal to zero.
      base58check.encode(Uint8Array.from([...payload.subarray(0, 45), ...new Uint8Array(33)])),
    ];
    for (const text of garbage) refusal(() => parseAccountKey(text, "bitcoin"), text);
    refusal(() => parseAccountKey(undefined as unknown as string, "bitcoin"), "");
    refusal(() => parseAccountKey(42 as unknown as string, "litecoin"), "");
  });
});

describe("deriveAddress", () => {
  const account = parseAccountKey(BIP84.zpub, "bitcoin").key;
  const mainnet = addressParams("bitcoin", "main");

  it("derives BIP84's receive and change addresses", () => {
    expect(deriveAddress(account, 0, 0, mainnet)).toBe(BIP84.receive0);
    expect(deriveAddress(account, 0, 1, mainnet)).toBe(BIP84.receive1);
    expect(deriveAddress(account, 1, 0, mainnet)).toBe(BIP84.change0);
  });

  it("derives the same addresses from the private account key", () => {
    const zprv = parseAccountKey(serialise("m/84'/0'/0'", VERSIONS.zpub, true), "bitcoin").key;
    expect(deriveAddress(zprv, 0, 1, mainnet)).toBe(BIP84.receive1);
  });

  it("gives the addresses Litecoin Core derives for the same account on regtest", () => {
    const tpub = parseAccountKey(serialise("m/84'/1'/0'", VERSIONS.tpub), "litecoin").key;
    const regtest = addressParams("litecoin", "regtest");
    expect(deriveAddress(tpub, 0, 0, regtest)).toBe(BIP84_TEST.rltcReceive0);
    expect(deriveAddress(tpub, 0, 1, regtest)).toBe(BIP84_TEST.rltcReceive1);
    expect(deriveAddress(tpub, 1, 0, regtest)).toBe(BIP84_TEST.rltcChange0);
  });

  it("gives ltc1, tltc1 and rltc1 addresses with the bc1 address's witness program", () => {
    const expected = witnessProgram(BIP84.receive0).program;
    for (const [chain, prefix] of [
      ["main", "ltc"],
      ["test", "tltc"],
      ["regtest", "rltc"],
    ] as const) {
      const address = deriveAddress(account, 0, 0, addressParams("litecoin", chain));
      expect(witnessProgram(address)).toEqual({ prefix, program: expected });
    }
  });

  it("derives addresses the address rules accept on their chain only", () => {
    for (const family of ["bitcoin", "litecoin"] as const) {
      for (const chain of ["main", "test", "regtest"] as const) {
        const address = deriveAddress(account, 0, 7, addressParams(family, chain));
        expect(isValidAddressOfFamily(family, address, { chain })).toBe(true);
        const others = (["main", "test", "regtest"] as const).filter((other) => other !== chain);
        expect(isValidAddressOfFamily(family, address, { chain: others })).toBe(false);
        expect(isValidAddressOfFamily(family === "bitcoin" ? "litecoin" : "bitcoin", address, { chain })).toBe(false);
      }
    }
  });

  it("is btc-signer's P2WPKH of the derived child key", () => {
    const child = account.deriveChild(0).deriveChild(5);
    expect(deriveAddress(account, 0, 5, mainnet)).toBe(p2wpkh(child.publicKey!, NETWORK).address);
  });

  it("refuses hardened, negative, fractional indexes and other branches", () => {
    for (const index of [-1, 1.5, 0x80000000, Number.NaN, Number.MAX_SAFE_INTEGER + 1]) {
      expect(() => deriveAddress(account, 0, index, mainnet)).toThrow(RangeError);
    }
    expect(() => deriveAddress(account, 2 as 0, 0, mainnet)).toThrow(RangeError);
    expect(deriveAddress(account, 0, 0x7fffffff, mainnet)).toMatch(/^bc1q/);
  });
});

describe("derivePrivateKey", () => {
  const zprv = parseAccountKey(serialise("m/84'/0'/0'", VERSIONS.zpub, true), "bitcoin").key;

  it("derives BIP84's private key of the first receive address", () => {
    expect(WIF(NETWORK).encode(derivePrivateKey(zprv, 0, 0))).toBe(BIP84.receive0Wif);
  });

  it("returns a copy the caller may wipe", () => {
    derivePrivateKey(zprv, 0, 0).fill(0);
    expect(WIF(NETWORK).encode(derivePrivateKey(zprv, 0, 0))).toBe(BIP84.receive0Wif);
  });

  it("refuses a public key", () => {
    const zpub = parseAccountKey(BIP84.zpub, "bitcoin").key;
    expect(() => derivePrivateKey(zpub, 0, 0)).toThrow(TypeError);
  });
});

describe("sameAccount", () => {
  const zpub = parseAccountKey(BIP84.zpub, "bitcoin").key;
  const zprv = parseAccountKey(serialise("m/84'/0'/0'", VERSIONS.zpub, true), "bitcoin").key;

  it("is true for an account's public and private keys, whatever their serialisations", () => {
    expect(sameAccount(zpub, zprv)).toBe(true);
    const xprv = parseAccountKey(serialise("m/84'/0'/0'", VERSIONS.xpub, true), "bitcoin").key;
    expect(sameAccount(zpub, xprv)).toBe(true);
  });

  it("is false for another account, another coin type or another wallet", () => {
    for (const path of ["m/84'/0'/1'", "m/84'/1'/0'", "m/49'/0'/0'"]) {
      const other = parseAccountKey(serialise(path, VERSIONS.xpub, true), "bitcoin").key;
      expect(sameAccount(zpub, other), path).toBe(false);
    }
    const otherWallet = HDKey.fromMasterSeed(mnemonicToSeedSync("legal winner thank year wave sausage worth useful legal winner thank yellow")).derive(
      "m/84'/0'/0'",
    );
    expect(sameAccount(zpub, otherWallet)).toBe(false);
  });
});

describe("scriptOf and addressOfScript", () => {
  const mainnet = addressParams("bitcoin", "main");

  it("gives the scriptPubKey Litecoin Core reports, and back", () => {
    const regtest = addressParams("litecoin", "regtest");
    expect(scriptOf(BIP84_TEST.rltcReceive0, regtest)).toBe(BIP84_TEST.script0);
    expect(addressOfScript(BIP84_TEST.script0, regtest)).toBe(BIP84_TEST.rltcReceive0);
    expect(addressOfScript(BIP84_TEST.script0.toUpperCase(), regtest)).toBe(BIP84_TEST.rltcReceive0);
    // The same script is a tb1 address on Bitcoin testnet.
    expect(addressOfScript(BIP84_TEST.script0, addressParams("bitcoin", "test"))).toBe(BIP84_TEST.receive0);
  });

  it("round-trips every standard address form", () => {
    const program32 = hex.encode(sha256(new TextEncoder().encode("a script")));
    const hash20 = "751e76e8199196d454941c45d1b3a323f1433bd6";
    const taprootKey = "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798";
    const scripts = [
      `0014${hash20}`, // P2WPKH
      `0020${program32}`, // P2WSH
      `5120${taprootKey}`, // P2TR
      `76a914${hash20}88ac`, // P2PKH
      `a914${hash20}87`, // P2SH
      `5210${"ab".repeat(16)}`, // witness version 2, 16 bytes: a future segwit version
      `5102abcd`, // witness version 1 with a 2-byte program: not taproot, still an address
    ];
    for (const family of ["bitcoin", "litecoin"] as const) {
      for (const chain of ["main", "test", "regtest"] as const) {
        const params = addressParams(family, chain);
        for (const script of scripts) {
          const address = addressOfScript(script, params);
          expect(address, `${family} ${chain} ${script}`).not.toBeNull();
          expect(isValidAddressOfFamily(family, address!, { chain }), address!).toBe(true);
          expect(scriptOf(address!, params)).toBe(script);
        }
      }
    }
    expect(addressOfScript(`a914${hash20}87`, addressParams("litecoin", "main"))!.startsWith("M")).toBe(true);
  });

  it("encodes future segwit versions with bech32m, as BIP350 asks", () => {
    const address = addressOfScript(`5210${"ab".repeat(16)}`, mainnet)!;
    expect(address.startsWith("bc1z")).toBe(true);
    expect(bech32m.decode(address as `${string}1${string}`).words[0]).toBe(2);
    // BIP350's test vector: version 16, a 2-byte program.
    expect(scriptOf("BC1SW50QGDZ25J", mainnet)).toBe("6002751e");
  });

  it("agrees with btc-signer's own encoding of BIP84's address", () => {
    expect(scriptOf(BIP84.receive0, mainnet)).toBe(hex.encode(OutScript.encode(Address(NETWORK).decode(BIP84.receive0))));
  });

  it("answers null for scripts with no address", () => {
    const pubkey = "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798";
    for (const script of [
      "",
      "6a0401020304", // OP_RETURN
      `21${pubkey}ac`, // bare P2PK
      `5121${pubkey}51ae`, // bare 1-of-1 multisig
      "51", // OP_TRUE: a version with no program
      "ff",
      "0014abcd", // P2WPKH with a short hash
      `0013${"00".repeat(19)}`, // witness version 0 with a 19-byte program
      `5129${"ab".repeat(41)}`, // witness version 1 with a 41-byte program
      "01025102abcd", // a non-minimal push before the pattern
      "zz",
      "abc",
    ]) {
      expect(addressOfScript(script, mainnet), script).toBeNull();
    }
  });

  it("refuses an address of another chain or coin", () => {
    expect(() => scriptOf(BIP84.receive0, addressParams("litecoin", "main"))).toThrow(TypeError);
    expect(() => scriptOf(BIP84_TEST.receive0, mainnet)).toThrow(TypeError);
    // Litecoin's 0x05 P2SH form is a Bitcoin address: refused for Litecoin, as address-rules does.
    expect(() => scriptOf("3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy", addressParams("litecoin", "main"))).toThrow(TypeError);
    expect(() => scriptOf("not an address", mainnet)).toThrow(TypeError);
  });
});
