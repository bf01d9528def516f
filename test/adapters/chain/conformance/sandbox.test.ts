import { runChainAdapterTests } from "../../../../src/testing/index";
import { SANDBOX_PAIRS, sandboxSubject } from "./sandbox-subject";

// The simulated chain of test mode, on every pair of the default currency list.
runChainAdapterTests({ name: "sandboxChain", pairs: SANDBOX_PAIRS, createSubject: () => sandboxSubject() });
