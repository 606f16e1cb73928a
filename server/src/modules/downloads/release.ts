import { t } from "elysia";
import { renderManifest } from "@protocol/release-manifest";
import { PRODUCT_VERSION } from "@protocol/version";
import type { AppContext } from "../../context";
import type { AgentBinary } from "./agent-binaries";

export const releasesAnswer = t.Object({
  version: t.String({ description: "The newest agent version offered (this server's own when it offers none)" }),
  installScript: t.String({ description: "URL of install.sh (Linux, macOS)" }),
  installPowerShell: t.String({ description: "URL of install.ps1 (Windows)" }),
  publicUrlSet: t.Boolean({ description: "False when the server's PUBLIC_URL is not set: these URLs then use the address the request came to, and e-mailed links say http://localhost" }),
  publicKey: t.String({ description: "The instance's Ed25519 release signing key: 32 bytes in base64" }),
  manifest: t.String({ description: "The release manifest (protocol/release-manifest.ts), the exact text signed" }),
  signature: t.String({ description: "Ed25519 signature of manifest, base64" }),
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
 * What this server offers: each binary, and the manifest of them all signed with the instance's
 * key; its URLs start with `base`, the server as the requester reaches it (lib/request-origin.ts).
 */
export function describeRelease(ctx: AppContext, binaries: readonly AgentBinary[], base: string): Release {
  const manifest = renderManifest(
    binaries.map(({ platform, version, sha256, size }) => ({ platform: platform.id, fileName: platform.fileName, version, sha256, size })),
  );
  const versions = binaries.map((binary) => binary.version).sort((a, b) => Bun.semver.order(b, a));
  return {
    version: versions[0] ?? PRODUCT_VERSION,
    installScript: `${base}/install.sh`,
    installPowerShell: `${base}/install.ps1`,
    publicUrlSet: ctx.config.publicUrlSet,
    publicKey: ctx.releaseSigner.publicKey,
    manifest,
    signature: ctx.releaseSigner.sign(manifest),
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
