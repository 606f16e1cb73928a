// Starting mongodump/mongorestore and watching them: stderr is parsed line by line, the last
// lines are kept (redacted) to explain a failure, and an abort kills the process.
import { type ChildProcess, spawn } from "node:child_process";
import { redactSecrets } from "../connection-string.ts";
import { DumpError } from "../errors.ts";
import { forEachLine, parseToolLine, stripTimestamp, type ToolLine } from "./tool-output.ts";

export interface RunningTool {
  readonly child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal) once stderr is fully read; rejects with DumpError "tool-failed" if it could not start. */
  readonly exited: Promise<number | null>;
  /** What the tool said about its failure (its "Failed:" line, else its last line), redacted. */
  describeFailure(exitCode: number | null): string;
  /** Stops the tool if it still runs; never throws. */
  stop(): void;
}

export interface ToolRun {
  name: "mongodump" | "mongorestore";
  path: string;
  args: string[];
  /** The connection string, so that its traces are removed from anything the tool printed. */
  uri: string;
  stdin: "pipe" | "ignore";
  stdout: "pipe" | "ignore";
  onLine: (line: ToolLine) => void;
  signal: AbortSignal | undefined;
}

const KEPT_LINES = 20;

/** Starts a tool with the arguments given (never a secret among them); never throws. */
export function startTool(run: ToolRun): RunningTool {
  const child = spawn(run.path, run.args, { stdio: [run.stdin, run.stdout, "pipe"] });
  const recent: string[] = [];
  let failedLine: string | undefined;
  const stderrDone = forEachLine(child.stderr!, (raw) => {
    const line = redactSecrets(raw, [run.uri]);
    recent.push(line);
    if (recent.length > KEPT_LINES) recent.shift();
    const parsed = parseToolLine(line);
    if (!parsed) return;
    if (parsed.kind === "failed") failedLine = parsed.message;
    run.onLine(parsed);
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once("error", (error) =>
      reject(
        new DumpError("tool-failed", `${run.name} could not be started: ${(error as Error).message}`, {
          hint: `check the path of ${run.name} (tools.${run.name} in the config file, or PATH)`,
        }),
      ),
    );
    child.once("close", (code) => void stderrDone.then(() => resolve(code)));
  });
  exited.catch(() => undefined);
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  };
  run.signal?.addEventListener("abort", stop, { once: true });
  return {
    child,
    exited,
    describeFailure(exitCode) {
      const what = failedLine ?? recent.at(-1) ?? "no message";
      const how = exitCode === null ? "was stopped" : `exited with code ${exitCode}`;
      return `${run.name} ${how}: ${stripTimestamp(what)}`;
    },
    stop,
  };
}
