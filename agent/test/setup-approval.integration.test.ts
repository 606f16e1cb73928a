// `setup --force` on a machine whose own agent credentials no longer work (here: its token
// replaced on the server): the organization's API key alone does not register the agent again.
// The server answers a one-time code that setup prints; once a user approves it from a
// re-authenticated session, `setup --force --setup-code CODE` registers the same agent again.
import { expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { agents } from "@db/schema";
import { runSetup } from "./support/end-to-end.ts";
import { useEndToEndWorld } from "./support/end-to-end-world.ts";
import { apiFor } from "./support/server-faults.ts";

const world = useEndToEndWorld();

test("setup --force without working credentials prints a code; approved, --setup-code registers the same agent", async () => {
  const user = await world.server.registerUser();
  const api = apiFor(world.base, user.token);
  const directory = await world.env.makeTempDir();
  const databases = [{ name: "shop", uri: world.env.uriFor("shop_setup_approval") }];
  const first = await runSetup({ baseUrl: world.base, apiKey: user.apiKey, databases, directory });
  expect(first.exitCode).toBe(0);
  const [agent] = await world.server.ctx.db.select().from(agents).where(eq(agents.organizationId, user.id));
  // The machine's token stops being the agent's (as after a reset it never received).
  await world.server.ctx.db
    .update(agents)
    .set({ tokenHash: "0".repeat(64) })
    .where(eq(agents.id, agent!.id));

  const refused = await runSetup({ baseUrl: world.base, apiKey: user.apiKey, databases, directory, extraArgs: ["--force"] });
  expect(refused.exitCode).not.toBe(0);
  const code = refused.stderr.match(/--setup-code ([0-9A-Z]{5}-[0-9A-Z]{5})/)?.[1];
  expect(code).toBeDefined();
  expect(refused.stderr).toContain(`/api/agents/${agent!.id}/setup-approval`);

  const approved = await api("POST", `/api/agents/${agent!.id}/setup-approval`, { setupCode: code, password: user.password });
  expect(approved.status).toBe(200);
  const again = await runSetup({ baseUrl: world.base, apiKey: user.apiKey, databases, directory, extraArgs: ["--force", "--setup-code", code!] });
  expect(again.exitCode).toBe(0);
  expect(again.stderr).toContain(`again (its old credentials no longer work) (id ${agent!.id})`);
  expect((await world.server.ctx.db.select().from(agents).where(eq(agents.organizationId, user.id))).map((a) => a.id)).toEqual([agent!.id]);
}, 120_000);
