import { runChainAdapterTests } from "../../../../src/testing/index";
import { sandboxSubject } from "./sandbox-subject";

// The simulated chain of test mode, on every pair of the default currency list.
runChainAdapterTests({ name: "sandboxChain", createSubject: () => sandboxSubject() });
