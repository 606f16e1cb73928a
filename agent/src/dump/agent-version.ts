// The agent's version is the product's (protocol/version.ts), or what the build stamped in.
export { AGENT_VERSION } from "../build-info.ts";
