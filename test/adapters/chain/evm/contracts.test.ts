import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as forwarderArtifacts from "../../../../src/adapters/chain/evm/contracts/artifacts";
import * as testArtifacts from "../../../fixtures/contracts/artifacts";
import { artifactsPathFor, buildArtifactsModule, GENERATE_COMMAND, REPO_ROOT, type CompiledContract } from "../../../../scripts/compile-contracts";

// The committed artifacts are what runs on chain and what every deposit address is derived from:
// they must be exactly what the committed .sol compiles to. solc is emscripten: ~4 s per module.
const COMPILE_TIMEOUT = 60_000;

const modules = [
  {
    source: "src/adapters/chain/evm/contracts/ForwarderFactory.sol",
    committed: forwarderArtifacts as Record<string, unknown>,
    expected: ["forwarderAbi", "forwarderInitCode", "forwarderFactoryAbi", "forwarderFactoryBytecode"],
  },
  {
    source: "test/fixtures/contracts/TestContracts.sol",
    committed: testArtifacts as Record<string, unknown>,
    expected: [
      "mockAggregatorAbi",
      "mockAggregatorBytecode",
      "payerAbi",
      "payerBytecode",
      "revertingReceiverAbi",
      "revertingReceiverBytecode",
      "testTokenAbi",
      "testTokenBytecode",
    ],
  },
];

// Each module compiled once per test file, however many tests look at it.
const builds = new Map<string, ReturnType<typeof buildArtifactsModule>>();
function build(source: string): ReturnType<typeof buildArtifactsModule> {
  if (!builds.has(source)) builds.set(source, buildArtifactsModule([source]));
  return builds.get(source)!;
}

function codeExport(contract: CompiledContract, committed: Record<string, unknown>): unknown {
  const base = contract.name.charAt(0).toLowerCase() + contract.name.slice(1);
  return committed[`${base}Bytecode`] ?? committed[`${base}InitCode`];
}

describe.each(modules)("the committed artifacts of $source", ({ source, committed, expected }) => {
  const regenerate = `the .sol changed without regenerating: run \`${GENERATE_COMMAND}\` and commit ${artifactsPathFor(source)}`;

  it("export the ABI and creation code of every deployable contract under stable names", () => {
    expect(Object.keys(committed).sort()).toEqual([...expected].sort());
  });

  it(
    "are byte for byte what solc makes of the committed source",
    async () => {
      const { text, compilation } = await build(source);
      expect(compilation.contracts.length, "deployable contracts").toBe(expected.length / 2);
      for (const contract of compilation.contracts) {
        const base = contract.name.charAt(0).toLowerCase() + contract.name.slice(1);
        expect(codeExport(contract, committed), `${contract.name} creation code: ${regenerate}`).toBe(contract.bytecode);
        expect(committed[`${base}Abi`], `${contract.name} ABI: ${regenerate}`).toEqual(contract.abi);
      }
      // The whole file too: its header hashes the source, so even a comment edit must be regenerated.
      expect(readFileSync(join(REPO_ROOT, artifactsPathFor(source)), "utf8") === text, regenerate).toBe(true);
    },
    COMPILE_TIMEOUT,
  );
});

it(
  "compiles the contracts with only the selfdestruct deprecation warning, which the sweep relies on",
  async () => {
    const { compilation } = await build(modules[0]!.source);
    expect(compilation.warnings.map((w) => w.message.split("\n")[0])).toEqual([expect.stringContaining('"selfdestruct" has been deprecated')]);
  },
  COMPILE_TIMEOUT,
);
