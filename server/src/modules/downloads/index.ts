import { Elysia, t } from "elysia";
import { PRODUCT_VERSION } from "@protocol/version";
import type { AppContext } from "../../context";
import { AppError } from "../../lib/errors";
import { AGENT_PLATFORMS } from "@protocol/agent-platforms";
import { type AgentBinaries, createAgentBinaries, defaultAgentDir } from "./agent-binaries";
import { renderInstallScript } from "./install-script";
import { fileAnswer } from "../../lib/schema";

const releasesAnswer = t.Object({
  version: t.String(),
  installScript: t.String({ description: "URL of install.sh" }),
  platforms: t.Array(
    t.Object({
      os: t.String(),
      arch: t.String(),
      libc: t.Optional(t.String({ description: "musl for Alpine builds" })),
      url: t.String(),
      sha256: t.String(),
      size: t.Integer(),
    }),
  ),
});

/**
 * The agent, handed out by the server it will connect to: `GET /install.sh` (the one-line
 * installer), `GET /downloads/<file>` (the binaries, with their SHA-256) and
 * `GET /api/agent/releases` (what is offered, for the web app and scripts). All public: a
 * binary holds no secret, and the installer runs before the user has anything to sign in with.
 */
export const downloadsController = (ctx: AppContext, options: { binaries?: AgentBinaries } = {}) => {
  const binaries = options.binaries ?? createAgentBinaries({ agentDir: ctx.config.agentDir ?? defaultAgentDir() });
  const urlOf = (fileName: string) => `${ctx.config.publicUrl}/downloads/${fileName}`;

  return new Elysia({ detail: { tags: ["Agent downloads"] } })
    .get(
      "/install.sh",
      async ({ set }) => {
        set.headers["content-type"] = "text/x-shellscript; charset=utf-8";
        // The checksums inside change with every build of the agent.
        set.headers["cache-control"] = "no-store";
        return renderInstallScript(ctx.config.publicUrl, await binaries.available());
      },
      { detail: { summary: "The agent installer: curl -fsSL <server>/install.sh | sh", responses: { 200: fileAnswer("A POSIX shell script", "text/x-shellscript") } } },
    )
    .get(
      "/downloads/:file",
      async ({ params, set }) => {
        const platform = AGENT_PLATFORMS.find((p) => p.fileName === params.file);
        const binary = platform ? await binaries.find(platform) : null;
        if (!binary) {
          const offered = (await binaries.available()).map((b) => b.platform.fileName);
          const what = platform ? `The ${platform.id} agent has not been built on this server` : `There is no download named ${params.file}`;
          throw new AppError(404, "NOT_FOUND", `${what}. This server offers: ${offered.join(", ") || "nothing yet (npm run build:agent)"}.`, { offered });
        }
        set.headers["content-type"] = "application/octet-stream";
        set.headers["content-length"] = String(binary.size);
        set.headers["content-disposition"] = `attachment; filename="dbvault-agent"`;
        set.headers["x-content-sha256"] = binary.sha256;
        set.headers["cache-control"] = "no-cache";
        return binary.file;
      },
      { params: t.Object({ file: t.String({ maxLength: 200 }) }), detail: { summary: "An agent binary, with X-Content-SHA256", responses: { 200: fileAnswer("The agent program for that platform") } } },
    )
    .get(
      "/api/agent/releases",
      async () => ({
        version: PRODUCT_VERSION,
        installScript: `${ctx.config.publicUrl}/install.sh`,
        platforms: (await binaries.available()).map(({ platform, sha256, size }) => ({
          os: platform.os,
          arch: platform.arch,
          ...(platform.libc ? { libc: platform.libc } : {}),
          url: urlOf(platform.fileName),
          sha256,
          size,
        })),
      }),
      { response: { 200: releasesAnswer }, detail: { summary: "The agent builds this server offers, with their checksums" } },
    );
};
