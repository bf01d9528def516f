/**
 * express-crypto-pay/testing: conformance suites for adapters (run inside your vitest) and the
 * record builders they use.
 */
export { runStorageAdapterTests } from "./storage-conformance";
export type { StorageAdapterTestOptions } from "./storage-conformance";
export * as storageFixtures from "./storage/fixtures";
export { runChainAdapterTests } from "./chain-conformance";
export type { ChainAdapterTestOptions, ChainTestPair, ChainTestSubject } from "./chain-conformance";
export { runPricingAdapterTests } from "./pricing-conformance";
export type { PricingAdapterTestOptions } from "./pricing-conformance";
