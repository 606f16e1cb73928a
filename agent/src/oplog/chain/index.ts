// Chains of oplog slices as a point-in-time restore reads them. See verify-chain.ts.
export { ChainError } from "./chain-error.ts";
export type { SliceFile, SliceKeys } from "./open-slice.ts";
export { type VerifiedChain, type VerifyChainRequest, verifyChain } from "./verify-chain.ts";
