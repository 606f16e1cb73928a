// The knowledge-base article on API tokens shows curl examples for CI jobs. They are taken from
// the article as published and run, as written, with bash, curl and jq against a real server on
// loopback, whose agent is a scripted stand-in (the real agent's backups are tested elsewhere).
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitUntil } from "../../testkit/wait-until";
import { loadSeedArticles } from "../src/modules/kb/seed";
import { useListeningTestServer } from "./harness";
import { registerScriptedAgent } from "./scripted-agent";

const world = useListeningTestServer();
const missingTools = ["bash", "curl", "jq", "sha256sum"].filter((tool) => !Bun.which(tool));
if (missingTools.length > 0) console.warn(`skipped: the article's examples need ${missingTools.join(", ")}, not installed here`);

/** The article's shell examples by the heading of their section. */
function examplesOfArticle(): Map<string, string> {
  const article = loadSeedArticles().find((a) => a.slug === "api-tokens-for-scripts-and-ci");
  if (!article) throw new Error("the article api-tokens-for-scripts-and-ci is not seeded");
  const examples = new Map<string, string>();
  for (const section of article.content.split(/^## /m).slice(1)) {
    const heading = section.slice(0, section.indexOf("\n"));
    const block = section.match(/^```sh\n([\s\S]*?)^```$/m);
    if (block) examples.set(heading, block[1]!);
  }
  return examples;
}

/** Runs one example as a CI job's step would (GitHub Actions runs `bash -eo pipefail`). */
async function runExample(script: string, env: { DBVAULT_URL: string; DBVAULT_TOKEN: string }, cwd: string) {
  const child = Bun.spawn(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], {
    cwd,
    env: { PATH: process.env.PATH!, HOME: cwd, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

describe("the API token article's curl examples", () => {
  test.skipIf(missingTools.length > 0)(
    "list backups, trigger one and wait, download the latest and check the last verification, as written",
    async () => {
      const { server, base } = world;
      const examples = examplesOfArticle();
      expect([...examples.keys()]).toEqual(
        expect.arrayContaining([
          "Set up your shell",
          "List your backups",
          "Trigger a backup and wait for it",
          "Download the latest backup",
          "Check the last verification",
        ]),
      );
      const user = await server.registerUser();
      const agent = await registerScriptedAgent(base, user.apiKey, ["orders"]);
      await agent.connect();
      const created = await server.call("POST", "/api/user/api-tokens", {
        token: user.token,
        body: { name: "nightly CI", scopes: ["read", "backup"], expiresInDays: 30, password: user.password },
      });
      expect(created.status).toBe(201);
      const env = { DBVAULT_URL: base, DBVAULT_TOKEN: created.body.token as string };
      const cwd = mkdtempSync(join(tmpdir(), "dbvault-curl-"));
      try {
        // Nothing verified yet: the CI gate fails, saying why.
        const unverified = await runExample(examples.get("Check the last verification")!, env, cwd);
        expect([unverified.code, unverified.stderr.trim()]).toEqual([1, "no backup verified yet"]);

        // Trigger and wait: the agent receives the command and uploads while the script polls.
        const running = runExample(examples.get("Trigger a backup and wait for it")!, env, cwd);
        const command = await agent.waitFor("backup", 30_000);
        const bytes = new Uint8Array(3000).map((_, i) => (i * 7) % 256);
        expect((await agent.upload(command.backupId, bytes)).status).toBe(200);
        const triggered = await running;
        expect(triggered.stderr).toBe("");
        expect([triggered.code, triggered.stdout]).toEqual([0, `backup ${command.backupId} started\nbackup ${command.backupId} completed\n`]);

        const listed = await runExample(examples.get("List your backups")!, env, cwd);
        expect(listed.code).toBe(0);
        expect(listed.stdout).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z {2}orders {2}completed {2}3000 bytes\n$/);

        const downloaded = await runExample(examples.get("Download the latest backup")!, env, cwd);
        expect([downloaded.code, downloaded.stdout]).toEqual([0, `dbvault-${command.backupId}.enc: OK\n`]);
        expect(new Uint8Array(readFileSync(join(cwd, `dbvault-${command.backupId}.enc`)))).toEqual(bytes);

        agent.send({ type: "backup.verified", backupId: command.backupId, verification: { status: "ok", namespaces: { "shop.orders": 12 } } });
        await waitUntil(async () => (await server.call("GET", `/api/backups/${command.backupId}`, { token: user.token })).body.verifiedAt, {
          message: "the verification to be recorded",
        });
        const verified = await runExample(examples.get("Check the last verification")!, env, cwd);
        expect(verified.code).toBe(0);
        expect(verified.stdout).toMatch(new RegExp(`^backup ${command.backupId} of orders: ok, checked \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\n$`));

        // A token without the backup scope: the trigger example stops with DBVault's reason.
        const readOnly = await server.call("POST", "/api/user/api-tokens", {
          token: user.token,
          body: { name: "dashboard", scopes: ["read"], expiresInDays: 7, password: user.password },
        });
        const refused = await runExample(examples.get("Trigger a backup and wait for it")!, { ...env, DBVAULT_TOKEN: readOnly.body.token }, cwd);
        expect(refused.code).not.toBe(0);
        expect(refused.stderr).toContain("403");
      } finally {
        await agent.disconnect();
        rmSync(cwd, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
