import { expect, test } from "bun:test";
import { describePlatform, formatInstallCommand } from "./agent-install";

test("the one-line install command and platform names", () => {
  expect(formatInstallCommand("https://vault.example.com/install.sh")).toBe("curl -fsSL https://vault.example.com/install.sh | sh");
  expect(describePlatform({ os: "linux", arch: "x64", libc: "glibc" })).toBe("Linux x64");
  expect(describePlatform({ os: "linux", arch: "arm64", libc: "musl" })).toBe("Linux arm64 (musl, Alpine)");
  expect(describePlatform({ os: "darwin", arch: "arm64" })).toBe("macOS arm64");
});
