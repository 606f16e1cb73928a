// The agent's version, taken from the repository's package.json at build time (bun build
// --compile inlines it), so the binary, the archive header and `version` always agree.
import packageJson from "../../../package.json" with { type: "json" };

export const AGENT_VERSION: string = packageJson.version;
