// What this agent binary was built as: scripts/build-agent.ts compiles the version and the
// platform in (bun build --define). Run from source, the version is the checkout's and the
// platform is unknown: such an agent cannot update itself (the checkout is updated instead).
import { PRODUCT_VERSION } from "../../protocol/version";

declare const DBVAULT_BUILD_VERSION: string | undefined;
declare const DBVAULT_BUILD_PLATFORM: string | undefined;

/** The version this agent reports and compares with the server's offer. */
export const AGENT_VERSION: string = typeof DBVAULT_BUILD_VERSION === "string" ? DBVAULT_BUILD_VERSION : PRODUCT_VERSION;

/** The build's platform id (`linux-arm64-musl`…, see protocol/agent-platforms.ts); null when run from source. */
export const BUILD_PLATFORM: string | null = typeof DBVAULT_BUILD_PLATFORM === "string" ? DBVAULT_BUILD_PLATFORM : null;

/** The platform as the agent reports it: the build's id, or the running process's os-arch from source. */
export const AGENT_PLATFORM: string = BUILD_PLATFORM ?? `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;

/** Whether this process is the compiled agent (its program lives in Bun's embedded file system), not Bun running the source. */
export const RUNNING_COMPILED: boolean = Bun.main.startsWith("/$bunfs/") || Bun.main.startsWith("B:/~BUN/") || Bun.main.startsWith("B:\\~BUN\\");
