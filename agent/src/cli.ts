#!/usr/bin/env bun
// dbvault-agent: the customer-side command line and daemon (`run`). This file
// only wires the process to runCli: real streams, the environment, and Ctrl-C.
import { EXIT } from "./cli-error.ts";
import { runCli } from "./commands/run-cli.ts";

// How long a failed command may take to flush what it wrote before the process exits anyway.
const FAILED_EXIT_GRACE_MS = 2000;

async function main(): Promise<void> {
  const controller = new AbortController();
  let interrupts = 0;
  const interrupt = () => {
    interrupts++;
    // A second Ctrl-C means "now": cleanup that hangs must not keep the user waiting.
    if (interrupts > 1) process.exit(130);
    controller.abort();
  };
  // Windows sends no SIGTERM; Ctrl-Break arrives as SIGBREAK (Ctrl-C as SIGINT everywhere).
  const signals: NodeJS.Signals[] = process.platform === "win32" ? ["SIGINT", "SIGTERM", "SIGBREAK"] : ["SIGINT", "SIGTERM"];
  for (const signal of signals) process.on(signal, interrupt);
  // If the event loop ever empties while the command is still waiting (a promise nothing will
  // settle), the process must not end as a success: it exits with a failure and says so.
  let finished = false;
  process.exitCode = EXIT.failure;
  process.once("beforeExit", () => {
    if (!finished) process.stderr.write("dbvault-agent: the command stopped before finishing; this is a bug, please report it\n");
  });
  const code = await runCli(process.argv.slice(2), {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    stdinIsTTY: process.stdin.isTTY === true,
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    columns: process.stderr.columns,
    env: process.env,
    signal: controller.signal,
  });
  finished = true;
  process.exitCode = code;
  for (const signal of signals) process.off(signal, interrupt);
  // A failed or cancelled command is over; output nobody reads any more (stdout into a pipe whose
  // reader stopped) must not keep the process alive. The timer does not itself hold the process.
  if (code !== 0) setTimeout(() => process.exit(code), FAILED_EXIT_GRACE_MS).unref();
}

// Not awaited at the top level: the compiled agent is built as bytecode, which needs a bundle
// without top-level await (scripts/build-agent.ts).
if (import.meta.main) void main();
