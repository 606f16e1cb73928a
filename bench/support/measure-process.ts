// Runs one command as its own process and measures it from outside: wall time (spawn to exit),
// CPU time (user + system) and peak resident set (GNU time's ru_maxrss, when /usr/bin/time is
// installed: apt-get install -y time). Paired benches alternate their two commands through this.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Measurement {
  seconds: number;
  cpuSeconds: number;
  /** Peak RSS in MB (10^6 bytes), or undefined without /usr/bin/time. */
  peakMb: number | undefined;
}

const GNU_TIME = "/usr/bin/time";
export const HAS_GNU_TIME = existsSync(GNU_TIME);

/** Runs `argv` (stdout to /dev/null) and measures it; throws with its stderr when it fails. */
export function measureProcess(argv: string[], options: { pinTo?: string; env?: Record<string, string> } = {}): Measurement {
  const report = join(tmpdir(), `dbvault-bench-time-${process.pid}.txt`);
  const pinned = options.pinTo ? ["taskset", "-c", options.pinTo, ...argv] : argv;
  const wrapped = HAS_GNU_TIME ? [GNU_TIME, "-o", report, "-f", "%e %U %S %M", ...pinned] : pinned;
  const started = performance.now();
  const result = Bun.spawnSync(wrapped, {
    stdout: Bun.file("/dev/null"),
    stderr: "pipe",
    env: { ...process.env, ...options.env },
  });
  const seconds = (performance.now() - started) / 1000;
  if (result.exitCode !== 0) throw new Error(`${argv.join(" ")} failed (exit ${result.exitCode}): ${result.stderr.toString().trim()}`);
  if (!HAS_GNU_TIME) {
    const cpu = result.resourceUsage?.cpuTime.total;
    return { seconds, cpuSeconds: cpu === undefined ? seconds : Number(cpu) / 1e6, peakMb: undefined };
  }
  const [, user, system, maxKb] = readFileSync(report, "utf8").trim().split(/\s+/).map(Number) as number[];
  rmSync(report, { force: true });
  return { seconds, cpuSeconds: user! + system!, peakMb: (maxKb! * 1024) / 1e6 };
}

/** The median of some numbers (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The CPU's model name as /proc/cpuinfo gives it (os.cpus() can shorten it), or "unknown CPU". */
export function readCpuModel(): string {
  try {
    return /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1]?.trim() ?? "unknown CPU";
  } catch {
    return "unknown CPU";
  }
}

/** The machine's load averages (1, 5, 15 min) as printed by uptime. */
export function describeLoad(): string {
  try {
    const [one, five, fifteen] = readFileSync("/proc/loadavg", "utf8").split(" ");
    return `load average ${one}, ${five}, ${fifteen}`;
  } catch {
    return "load average unknown";
  }
}

/** Runs `a` and `b` alternately `rounds` times (a, b, b, a, a, b, …: each goes first as often). */
export function measurePaired(rounds: number, a: () => Measurement, b: () => Measurement): { a: Measurement[]; b: Measurement[] } {
  const runs = { a: [] as Measurement[], b: [] as Measurement[] };
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      runs.a.push(a());
      runs.b.push(b());
    } else {
      runs.b.push(b());
      runs.a.push(a());
    }
  }
  return runs;
}

/** Summarizes runs as "median wall s (CPU s), peak MB". */
export function summarize(runs: Measurement[]): { seconds: number; cpuSeconds: number; peakMb: number | undefined } {
  const peaks = runs.map((run) => run.peakMb).filter((mb): mb is number => mb !== undefined);
  return {
    seconds: median(runs.map((run) => run.seconds)),
    cpuSeconds: median(runs.map((run) => run.cpuSeconds)),
    peakMb: peaks.length > 0 ? Math.max(...peaks) : undefined,
  };
}
