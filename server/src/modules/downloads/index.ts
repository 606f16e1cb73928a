import { join } from "node:path";
import { Elysia, t } from "elysia";
import { AGENT_PLATFORMS } from "@protocol/agent-platforms";
import type { AppContext } from "../../context";
import { AppError } from "../../lib/errors";
import { requestOrigin } from "../../lib/request-origin";
import { fileAnswer } from "../../lib/schema";
import { type AgentBinaries, type AgentBinary, createAgentBinaries, defaultAgentDir, shortDigest } from "./agent-binaries";
import { AlteredBinaryError, chooseEncoding, type CompressedCopies, createCompressedCopies, type DownloadEncoding } from "./compressed-copies";
import { verifyWhileSending } from "./verified-stream";
import { renderInstallScript } from "./install-script";
import { renderPowerShellInstaller } from "./install-powershell";
import { describeRelease, releasesAnswer } from "./release";
import { checkedMark, recordInstallStep } from "./install-progress";

/**
 * The agent, handed out by the server it will connect to: `GET /install.sh` and `GET /install.ps1`
 * (the one-line installers), `GET /downloads/<file>` (the binaries, with their SHA-256, compressed
 * when the client accepts it) and `GET /api/agent/releases` (what is offered, in the manifest its
 * build signed, for the web app, scripts and agents updating themselves). All public: a binary
 * holds no secret, and the installer runs before the user has anything to sign in with.
 */
/** `?for=<mark>`: the onboarding checklist's install command (install-progress.ts); anything else is ignored. */
const installQuery = t.Object({ for: t.Optional(t.String({ maxLength: 100 })) });

export const downloadsController = (ctx: AppContext, options: { binaries?: AgentBinaries; compressed?: CompressedCopies } = {}) => {
  // Read per request: ctx.releaseKey is the one place the trusted key lives.
  const binaries =
    options.binaries ?? createAgentBinaries({ agentDir: ctx.config.agentDir ?? defaultAgentDir(), trustedKey: () => ctx.releaseKey.publicKey, log: ctx.log });
  const compressed = options.compressed ?? createCompressedCopies({ dir: join(ctx.config.dataDir, "cache", "agent-downloads"), log: ctx.log });
  const release = async (request: Request) => {
    const signed = await binaries.release();
    return describeRelease(ctx, signed, await binaries.available(signed), requestOrigin(ctx.config, request));
  };

  /**
   * The compressed copy to send, or null to send the file as it is: when it was altered since the
   * server listed it, the check while sending cuts it short.
   */
  const compressedCopy = async (binary: AgentBinary, encoding: DownloadEncoding, offered: readonly AgentBinary[]) => {
    try {
      const copy = await compressed.copyOf(binary.file, binary.sha256, encoding);
      void compressed.prune(offered.map((b) => b.sha256)).catch(() => {});
      return copy;
    } catch (error) {
      if (!(error instanceof AlteredBinaryError)) throw error;
      return null;
    }
  };
  const cutShort = (platform: string) => (error: { expected: string; actual: string }) =>
    ctx.log.error("an agent download is not what its build signed (changed in storage after it was listed): cut short", {
      platform,
      expected: shortDigest(error.expected),
      actual: shortDigest(error.actual),
    });

  return new Elysia({ detail: { tags: ["Agent downloads"] } })
    .get(
      "/install.sh",
      async ({ set, request, query }) => {
        set.headers["content-type"] = "text/x-shellscript; charset=utf-8";
        // The checksums inside change with every build of the agent, and its URLs may with the Host.
        set.headers["cache-control"] = "no-store";
        await recordInstallStep(ctx, query.for, "script").catch((error) => ctx.log.warn("could not record an install step", { error }));
        return renderInstallScript(await release(request), checkedMark(ctx, query.for));
      },
      {
        query: installQuery,
        detail: {
          summary: "The agent installer for Linux and macOS: curl -fsSL <server>/install.sh | sh",
          description:
            "A POSIX sh script with this server's signed release manifest written into it. It picks the build from uname and the C library (glibc or musl), checks the manifest's Ed25519 signature with openssl when OpenSSL 3 is there, downloads the binary from /downloads, checks its SHA-256 against the manifest and installs it atomically; every refusal says why and installs nothing. Environment: DBVAULT_INSTALL_DIR (default /usr/local/bin when writable, else ~/.local/bin), DBVAULT_RELEASE_KEY (pins the release key and then requires OpenSSL 3), DBVAULT_URL (another address of this server).",
          responses: { 200: fileAnswer("A POSIX shell script", "text/x-shellscript") },
        },
      },
    )
    .get(
      "/install.ps1",
      async ({ set, request }) => {
        set.headers["content-type"] = "text/plain; charset=utf-8";
        set.headers["cache-control"] = "no-store";
        return renderPowerShellInstaller(await release(request));
      },
      {
        detail: {
          summary: "The agent installer for Windows: irm <server>/install.ps1 | iex",
          description:
            "A PowerShell script that downloads the windows-x64 build from /downloads into %LOCALAPPDATA%\\Programs\\DBVault (or $env:DBVAULT_INSTALL_DIR), checks its SHA-256 against the signed release manifest's (PowerShell cannot check the Ed25519 signature), installs it and puts the folder on the user's PATH. It never exits the user's shell: a refusal says why and returns.",
          responses: { 200: fileAnswer("A PowerShell script", "text/plain") },
        },
      },
    )
    .get(
      "/downloads/:file",
      async ({ params, set, request, query }) => {
        const platform = AGENT_PLATFORMS.find((p) => p.fileName === params.file);
        const signed = await binaries.release();
        const binary = platform ? await binaries.find(platform, signed) : null;
        if (!binary) {
          const offered = (await binaries.available(signed)).map((b) => b.platform.fileName);
          const what = platform ? `The ${platform.id} agent has not been built on this server` : `There is no download named ${params.file}`;
          throw new AppError(404, "NOT_FOUND", `${what}. This server offers: ${offered.join(", ") || "nothing yet (npm run build:agent)"}.`, { offered });
        }
        await recordInstallStep(ctx, query.for, "download").catch((error) => ctx.log.warn("could not record an install step", { error }));
        set.headers["content-type"] = "application/octet-stream";
        set.headers["content-disposition"] = `attachment; filename="${binary.platform.os === "windows" ? "dbvault-agent.exe" : "dbvault-agent"}"`;
        // Of the binary itself, whatever the encoding on the wire: what the signed manifest names.
        set.headers["x-content-sha256"] = binary.sha256;
        set.headers["cache-control"] = "no-cache";
        set.headers.vary = "Accept-Encoding";
        const encoding = chooseEncoding(request.headers.get("accept-encoding"));
        const copy = encoding ? await compressedCopy(binary, encoding, await binaries.available(signed)) : null;
        if (!encoding || !copy) {
          set.headers["content-length"] = String(binary.size);
          return new Response(verifyWhileSending(binary.file.stream(), binary.sha256, cutShort(binary.platform.id)));
        }
        const file = Bun.file(copy.path);
        set.headers["content-encoding"] = encoding;
        set.headers["content-length"] = String(file.size);
        return new Response(verifyWhileSending(file.stream(), copy.sha256, cutShort(binary.platform.id)));
      },
      {
        params: t.Object({ file: t.String({ maxLength: 200 }) }),
        query: installQuery,
        detail: {
          summary: "An agent binary, with X-Content-SHA256 (of the binary); zstd- or gzip-compressed when Accept-Encoding allows",
          responses: { 200: fileAnswer("The agent program for that platform") },
        },
      },
    )
    .get("/api/agent/releases", ({ request }) => release(request), {
      response: { 200: releasesAnswer },
      detail: { summary: "The agent builds this server offers, with their checksums, in the release manifest their build signed" },
    });
};
