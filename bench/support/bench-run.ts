// What every bench script does around its measurements: read its flags, build the compiled agent
// it runs, and collect PASS/FAIL lines to print again at the end (with the load then).
import { join } from "node:path";
import { describeLoad } from "./measure-process.ts";
import { root, verdict } from "./server-process.ts";

/** The value after `--name` on the command line, or undefined. */
export function readFlag(name: string): string | undefined {
  const args = process.argv.slice(2);
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

/** Builds dist/dbvault-agent (scripts/build-agent.ts) and answers its path; exits when the build fails. */
export function buildAgent(): string {
  if (Bun.spawnSync([process.execPath, join(root, "scripts/build-agent.ts")], { stdout: "ignore", stderr: "inherit" }).exitCode !== 0) process.exit(1);
  return join(root, "dist/dbvault-agent");
}

/** PASS/FAIL lines as they are judged, printed again by `finish` with the exit code they make. */
export function createVerdicts() {
  const lines: string[] = [];
  let allPass = true;
  return {
    check(pass: boolean, text: string) {
      allPass &&= pass;
      const line = verdict(pass, text);
      console.log(`  ${line}`);
      lines.push(line);
    },
    finish() {
      console.log(`\n${describeLoad()} at the end`);
      for (const line of lines) console.log(line);
      process.exitCode = allPass ? 0 : 1;
    },
  };
}
