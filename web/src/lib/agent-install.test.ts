import { expect, test } from "bun:test";
import {
  compareAgentVersion,
  compareVersions,
  describePlatform,
  formatInstallCommand,
  formatPowerShellInstallCommand,
  listPlatformOffers,
  type AgentReleases,
} from "./agent-install";

test("the one-line install commands and platform names", () => {
  expect(formatInstallCommand("https://vault.example.com/install.sh")).toBe("curl -fsSL https://vault.example.com/install.sh | sh");
  expect(formatPowerShellInstallCommand("https://vault.example.com/install.ps1")).toBe("irm https://vault.example.com/install.ps1 | iex");
  expect(describePlatform({ os: "linux", arch: "x64", libc: "glibc" })).toBe("Linux x64");
  expect(describePlatform({ os: "linux", arch: "arm64", libc: "musl" })).toBe("Linux arm64 (musl, Alpine)");
  expect(describePlatform({ os: "darwin", arch: "arm64" })).toBe("macOS arm64 (Apple silicon)");
  expect(describePlatform({ os: "darwin", arch: "x64" })).toBe("macOS x64 (Intel)");
  expect(describePlatform({ os: "windows", arch: "x64" })).toBe("Windows x64");
});

const offer = (platform: string, version: string) => ({ platform, os: "linux", arch: "x64", url: "", sha256: "", size: 1, version });
const releases = { version: "1.2.0", platforms: [offer("linux-x64", "1.2.0"), offer("linux-arm64-musl", "1.2.0")] } as unknown as AgentReleases;

test("every platform is listed, with what this server offers for it", () => {
  const offers = listPlatformOffers(releases);
  expect(offers.map((o) => [o.platform.id, o.offered?.version ?? null])).toEqual([
    ["linux-x64", "1.2.0"],
    ["linux-arm64", null],
    ["linux-x64-musl", null],
    ["linux-arm64-musl", "1.2.0"],
    ["darwin-arm64", null],
    ["darwin-x64", null],
    ["windows-x64", null],
  ]);
});

test("an agent's version against its own platform's offer", () => {
  expect(compareAgentVersion({ version: "1.1.9", platform: "linux-x64" }, releases)).toEqual({ state: "outdated", offered: "1.2.0" });
  expect(compareAgentVersion({ version: "1.2.0", platform: "linux-arm64-musl" }, releases)).toEqual({ state: "current", offered: "1.2.0" });
  expect(compareAgentVersion({ version: "1.3.0", platform: "linux-x64" }, releases)).toEqual({ state: "newer", offered: "1.2.0" });
  expect(compareAgentVersion({ version: "1.2.0", platform: "windows-x64" }, releases)).toEqual({ state: "not-offered" });
  expect(compareAgentVersion({ version: null, platform: "linux-x64" }, releases)).toEqual({ state: "unknown" });
  expect(compareAgentVersion({ version: "1.2.0", platform: "linux-x64" }, null)).toEqual({ state: "unknown" });
});

test("versions compare as semver: numbers as numbers, a pre-release before its release", () => {
  expect(compareVersions("1.10.0", "1.9.9")).toBe(1);
  expect(compareVersions("1.0.1-update-test", "1.0.0")).toBe(1);
  expect(compareVersions("1.0.1-rc.2", "1.0.1")).toBe(-1);
  expect(compareVersions("1.0.1-rc.10", "1.0.1-rc.2")).toBe(1);
  expect(compareVersions("2.0.0", "2.0.0")).toBe(0);
  for (const [a, b] of [
    ["1.0.0", "1.0.1"],
    ["0.9.0", "1.0.0-alpha"],
    ["1.0.0-alpha", "1.0.0-beta"],
  ]) {
    expect(compareVersions(a!, b!)).toBe(Bun.semver.order(a!, b!));
  }
});
