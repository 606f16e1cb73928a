import { expect, test } from "bun:test";
import { describeDatabaseAgents } from "./database-agents";

const old = { id: "a1", name: "vm-3f2a", status: "offline" };
const fresh = { id: "a2", name: "vm-9c01", status: "active" };

test("one agent holding it: where it runs; none: how to add it; several: a choice with each agent's state", () => {
  expect(describeDatabaseAgents({ agentId: "a2", agents: [fresh] })).toEqual({ kind: "one", text: "Runs on vm-9c01 (Online)" });
  expect(describeDatabaseAgents({ agentId: null, agents: [] })).toEqual({
    kind: "none",
    text: "No agent holds it: add it on a machine with dbvault-agent db add.",
  });
  expect(describeDatabaseAgents({ agentId: "a2", agents: [old, fresh] })).toEqual({
    kind: "choice",
    runnerId: "a2",
    options: [
      { id: "a1", label: "vm-3f2a (Offline)" },
      { id: "a2", label: "vm-9c01 (Online)" },
    ],
  });
  expect(describeDatabaseAgents({ agentId: "gone", agents: [old, fresh] })).toMatchObject({ kind: "choice", runnerId: null });
});
