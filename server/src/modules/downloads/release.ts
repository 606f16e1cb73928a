import { t } from "elysia";
import { renderManifest } from "@protocol/release-manifest";
import { PRODUCT_VERSION } from "@protocol/version";
import type { AppContext } from "../../context";
import type { AgentBinary, VerifiedRelease } from "./agent-binaries";

export const releasesAnswer = t.Object({
  version: t.String({ description: "The newest agent version offered (this server's own when it offers none)" }),
  installScript: t.String({ description: "URL of install.sh (Linux, macOS)" }),
  installPowerShell: t.String({ description: "URL of install.ps1 (Windows)" }),
  publicUrlSet: t.Boolean({
    description: "False when the server's PUBLIC_URL is not set: these URLs then use the address the request came to, and e-mailed links say http://localhost",
  }),
  mailedLinksUrl: t.String({
    description: "The address e-mailed links (password resets, alerts) start with: PUBLIC_URL, or without it http://localhost and the port",
  }),
  publicKey: t.String({ description: "The Ed25519 public key this server trusts for agent releases: 32 bytes in base64" }),
  manifest: t.String({
    description: "The release manifest (protocol/release-manifest.ts) as the build signed it; no lines when this server has no signed release",
  }),
  signature: t.String({ description: "The build's Ed25519 signature of manifest, base64; empty when this server has no signed release" }),
  platforms: t.Array(
    t.Object({
      platform: t.String({ description: "linux-x64, linux-arm64-musl, windows-x64…: what agents report as their platform" }),
      os: t.String(),
      arch: t.String(),
      libc: t.Optional(t.String({ description: "glibc or musl (Alpine) on Linux" })),
      url: t.String(),
      sha256: t.String(),
      size: t.Integer(),
      version: t.String(),
    }),
  ),
});

export type Release = typeof releasesAnswer.static;

/**
 * What this server offers: each binary whose file matches its signed line, and the signed manifest
 * exactly as the build signed it (this server cannot sign another; a line whose file is missing or
 * altered stays in it, and its download answers 404 or is cut short). Its URLs start with `base`,
 * the server as the requester reaches it (lib/request-origin.ts).
 */
export function describeRelease(ctx: AppContext, release: VerifiedRelease | null, binaries: readonly AgentBinary[], base: string): Release {
  const versions = binaries.map((binary) => binary.version).sort((a, b) => Bun.semver.order(b, a));
  return {
    version: versions[0] ?? PRODUCT_VERSION,
    installScript: `${base}/install.sh`,
    installPowerShell: `${base}/install.ps1`,
    publicUrlSet: ctx.config.publicUrlSet,
    mailedLinksUrl: ctx.config.publicUrl,
    publicKey: ctx.releaseKey.publicKey,
    manifest: release?.signed.manifest ?? renderManifest([]),
    signature: release?.signed.signature ?? "",
    platforms: binaries.map(({ platform, sha256, size, version }) => ({
      platform: platform.id,
      os: platform.os,
      arch: platform.arch,
      ...(platform.libc ? { libc: platform.libc } : {}),
      url: `${base}/downloads/${platform.fileName}`,
      sha256,
      size,
      version,
    })),
  };
}
