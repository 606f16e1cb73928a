// The agent's version is the product's (protocol/version.ts): one number for server and agent.
export { PRODUCT_VERSION as AGENT_VERSION } from "../../../protocol/version";
