// The product's version, taken from the repository's package.json at build time (bun build
// --compile inlines it), so the server, the agent binary it hands out, the archive header and
// `dbvault-agent version` always agree.
import packageJson from "../package.json" with { type: "json" };

export const PRODUCT_VERSION: string = packageJson.version;
