import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BACKUP_DEMO, RESTORE_DEMO } from "./terminal-demo";

// The agent's commands as its dispatcher lists them, read as text: web code imports no agent code.
const dispatcher = readFileSync(join(import.meta.dir, "../../../../../agent/src/commands/run-cli.ts"), "utf8");
const agentCommands = new Set([...dispatcher.matchAll(/^ {2}(\w+): lazy\(/gm)].map((match) => match[1]));

test("the landing page's demos show only commands the agent has", () => {
  expect(agentCommands.has("run")).toBe(true);
  const commands = [...BACKUP_DEMO, ...RESTORE_DEMO].filter((line) => line.kind === "command");
  expect(commands.length).toBeGreaterThan(0);
  for (const { text } of commands) {
    const [program, name] = text.split(" ");
    expect(program).toBe("dbvault-agent");
    expect(agentCommands.has(name!)).toBe(true);
  }
});

test("the restore demo stages and swaps, as the agent does, rather than drop the collections first", () => {
  const text = RESTORE_DEMO.map((line) => line.text).join("\n");
  expect(text).not.toMatch(/dropping/i);
  expect(text).toContain("staging");
});

test("the backup demo is the operator CLI's backup now, with the words it prints", () => {
  const backupSource = readFileSync(join(import.meta.dir, "../../../../../agent/src/commands/backup.ts"), "utf8");
  expect(BACKUP_DEMO[0]).toEqual({ kind: "command", text: "dbvault-agent backup now --db production-db" });
  // backup.ts takes --db and says "asked for a backup of "NAME" (ID): dbvault-agent run takes it now; …" (id and tail left out here).
  expect(backupSource).toContain('db: "string"');
  expect(backupSource).toContain("asked for a backup of");
  expect(BACKUP_DEMO[1]!.text).toStartWith('dbvault-agent: asked for a backup of "production-db"');
  expect(backupSource).toContain(": dbvault-agent run takes it now;");
});
