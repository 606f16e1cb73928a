// The platforms the agent is built for (scripts/build-agent.ts) and offered on (the server's
// /downloads and /install.sh): one list, so a build and its download name always agree.

export type AgentPlatform = {
  /** `linux-x64`, `linux-arm64-musl`, `windows-x64`…: what install.sh computes from uname. */
  id: string;
  os: "linux" | "darwin" | "windows";
  arch: "x64" | "arm64";
  /** Linux only: which C library the binary needs. */
  libc?: "glibc" | "musl";
  /** `bun build --compile --target=…` */
  bunTarget: string;
  /** The download's file name, also its name in the build output. */
  fileName: string;
};

const platform = (os: AgentPlatform["os"], arch: AgentPlatform["arch"], libc?: AgentPlatform["libc"]): AgentPlatform => {
  const id = `${os}-${arch}${libc === "musl" ? "-musl" : ""}`;
  return { id, os, arch, ...(libc ? { libc } : {}), bunTarget: `bun-${id}`, fileName: `dbvault-agent-${id}${os === "windows" ? ".exe" : ""}` };
};

/** Every platform, in the order the web app lists them. */
export const AGENT_PLATFORMS: readonly AgentPlatform[] = [
  platform("linux", "x64", "glibc"),
  platform("linux", "arm64", "glibc"),
  platform("linux", "x64", "musl"),
  platform("linux", "arm64", "musl"),
  platform("darwin", "arm64"),
  platform("darwin", "x64"),
  platform("windows", "x64"),
];

/** The platform of the machine running this (glibc assumed on Linux), e.g. `linux-x64`; "" in a browser. */
export const HOST_PLATFORM_ID = typeof process === "undefined" ? "" : `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;

/** The platform with this id (`linux-arm64-musl`…), or undefined. */
export function findAgentPlatform(id: string): AgentPlatform | undefined {
  return AGENT_PLATFORMS.find((candidate) => candidate.id === id);
}
