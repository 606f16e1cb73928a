// The agent fetches its jobs of the ledger over HTTP with its own credentials and acknowledges
// them there (GET agentApi.jobs, POST agentApi.jobAck): an agent whose hello says it does is told
// only `work` on its socket. Ownership: an agent sees and acknowledges only its own jobs, even
// beside another agent of its organization. Real HTTP and WebSockets, a scripted agent.
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { agentJobs, databases } from "@db/schema";
import { agentApi, type ServerMessage } from "@protocol/agent-protocol";
import { waitUntil } from "../../testkit/wait-until";
import { startBackup } from "../src/modules/backups/service";
import { useListeningTestServer } from "./harness";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

const world = useListeningTestServer();

const getJobs = async (agent: ScriptedAgent) => {
  const res = await fetch(`${world.base}${agentApi.jobs}`, { headers: agent.headers() });
  return { status: res.status, body: (await res.json()) as { jobs: (ServerMessage & { jobId: string })[]; message?: string } };
};
const ack = async (agent: Pick<ScriptedAgent, "headers">, jobId: string) => {
  const res = await fetch(`${world.base}${agentApi.jobAck(jobId)}`, { method: "POST", headers: agent.headers() });
  return { status: res.status, body: (await res.json()) as { status?: string; message?: string } };
};
const jobRow = async (jobId: string) => (await world.server.ctx.db.select().from(agentJobs).where(eq(agentJobs.id, jobId)))[0];

/** A user whose agent fetches its jobs, holding "shop" with one completed backup, and a second agent of the same organization. */
async function agentsOfOneOrganization() {
  const user = await world.server.registerUser();
  const agent = await registerScriptedAgent(world.base, user.apiKey, ["shop"], "fetching-agent");
  await agent.connect({ databases: ["shop"], fetchesJobs: true });
  const [shop] = await world.server.ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.organizationId, user.id), eq(databases.name, "shop")));
  const backup = await waitUntil(
    async () =>
      await startBackup(world.server.ctx, shop!, "auto")
        .then((row) => row)
        .catch(() => undefined),
    { message: "the agent to take backups" },
  );
  const other = await registerScriptedAgent(world.base, user.apiKey, ["stock"], "other-agent");
  await other.connect({ databases: ["stock"], fetchesJobs: true });
  return { user, agent, other, backupId: backup.id };
}

describe("the agent's jobs over HTTP", () => {
  test("the socket says only `work`; the agent fetches the command with its job id and acknowledges it", async () => {
    const { agent, backupId } = await agentsOfOneOrganization();
    await agent.waitFor("work");
    expect(agent.received.filter((message) => message.type === "backup")).toEqual([]);

    const fetched = await getJobs(agent);
    expect(fetched.status).toBe(200);
    expect(fetched.body.jobs).toEqual([{ type: "backup", jobId: expect.any(String), backupId, databaseName: "shop", fileName: expect.any(String) }]);
    const jobId = fetched.body.jobs[0]!.jobId;
    expect((await jobRow(jobId))?.attempts).toBe(1);

    expect(await ack(agent, jobId)).toEqual({ status: 200, body: { status: "taken" } });
    expect((await jobRow(jobId))?.state).toBe("leased");
    // Taken, not started: fetched again while its lease runs (its process may have restarted).
    expect((await getJobs(agent)).body.jobs.map((job) => job.jobId)).toEqual([jobId]);
    // Acknowledged again (a repeat the agent ignores): still its own.
    expect((await ack(agent, jobId)).status).toBe(200);

    // Started: never fetched again.
    agent.send({ type: "backup.progress", backupId, progress: { current: 1, total: 10, percentage: 10, collection: "shop.orders" } });
    await waitUntil(async () => (await jobRow(jobId))?.state === "running", { message: "the job to run" });
    expect((await getJobs(agent)).body.jobs).toEqual([]);
  });

  test("on hello too: the job of an agent that was away is fetched once it is back", async () => {
    const { agent, backupId } = await agentsOfOneOrganization();
    await agent.disconnect();
    agent.received.length = 0;
    await agent.connect({ databases: ["shop"], fetchesJobs: true });
    await agent.waitFor("work");
    expect((await getJobs(agent)).body.jobs.map((job) => "backupId" in job && job.backupId)).toEqual([backupId]);
  });

  test("a job fetched but not acknowledged when the server is killed is fetched again from the new one, under its id", async () => {
    const { agent, backupId } = await agentsOfOneOrganization();
    const [job] = (await getJobs(agent)).body.jobs;
    await agent.disconnect();
    await world.server.restart();
    agent.received.length = 0;
    await agent.connect({ databases: ["shop"], fetchesJobs: true });
    await agent.waitFor("work");
    expect((await getJobs(agent)).body.jobs).toEqual([job!]);
    expect(job).toMatchObject({ type: "backup", backupId });
    expect(await ack(agent, job!.jobId)).toEqual({ status: 200, body: { status: "taken" } });
  });

  test("another agent of the same organization neither fetches nor acknowledges the job", async () => {
    const { agent, other } = await agentsOfOneOrganization();
    const [job] = (await getJobs(agent)).body.jobs;
    expect(job).toBeDefined();
    const before = await jobRow(job!.jobId);

    expect(await getJobs(other)).toEqual({ status: 200, body: { jobs: [] } });
    const refused = await ack(other, job!.jobId);
    expect(refused).toEqual({ status: 404, body: expect.objectContaining({ message: "Job not found." }) });
    // Untouched: not leased to it, not counted as sent.
    expect(await jobRow(job!.jobId)).toEqual(before!);
  });

  test("an agent of another organization is refused alike; no credentials, 401; an unknown job id, 404", async () => {
    const { agent } = await agentsOfOneOrganization();
    const [job] = (await getJobs(agent)).body.jobs;
    const stranger = await world.server.registerUser();
    const theirs = await registerScriptedAgent(world.base, stranger.apiKey, ["shop"], "stranger-agent");
    expect((await getJobs(theirs)).body.jobs).toEqual([]);
    expect((await ack(theirs, job!.jobId)).status).toBe(404);

    expect((await fetch(`${world.base}${agentApi.jobs}`)).status).toBe(401);
    expect((await ack({ headers: () => ({}) }, job!.jobId)).status).toBe(401);
    expect((await ack(agent, randomBytes(12).toString("hex"))).status).toBe(404);
    expect((await ack(agent, "x".repeat(65))).status).toBe(400);
    expect((await jobRow(job!.jobId))?.state).toBe("queued");
  });
});
