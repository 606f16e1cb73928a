// Showing dump/restore progress on stderr: a redrawn bar on a terminal, plain lines otherwise
// (one when the collection changes, and at most one every 10 s), so logs stay readable.
import type { Writable } from "node:stream";
import type { Progress } from "../dump/types.ts";
import { formatCount } from "./format.ts";

export interface ProgressDisplay {
  update(progress: Progress): void;
  /** Clears the bar (terminal) so the next message starts on a clean line. */
  finish(): void;
}

export interface ProgressDisplayOptions {
  stream: Writable;
  isTTY: boolean;
  /** "dumping", "restoring"... */
  verb: string;
  /** Terminal width; 80 when unknown. */
  columns?: number;
  quiet?: boolean;
}

const BAR_WIDTH = 24;
const PLAIN_INTERVAL_MS = 10_000;

/** Returns a display that writes to `stream`; does nothing when quiet. Never throws. */
export function createProgressDisplay(options: ProgressDisplayOptions): ProgressDisplay {
  if (options.quiet) return { update() {}, finish() {} };
  return options.isTTY ? createBar(options) : createPlainLines(options);
}

function describeCounts(progress: Progress): string {
  return progress.total > 0
    ? `${formatCount(progress.current)}/${formatCount(progress.total)} documents`
    : `${formatCount(progress.current)} documents`;
}

function createBar(options: ProgressDisplayOptions): ProgressDisplay {
  let drawn = false;
  return {
    update(progress) {
      const filled = Math.round((Math.min(100, progress.percentage) / 100) * BAR_WIDTH);
      const bar = `[${"#".repeat(filled)}${".".repeat(BAR_WIDTH - filled)}]`;
      const percent = `${progress.percentage.toFixed(1).padStart(5)}%`;
      let line = `${options.verb} ${bar} ${percent}  ${describeCounts(progress)}  ${progress.collection}`;
      const width = (options.columns ?? 80) - 1;
      if (line.length > width) line = `${line.slice(0, width - 1)}…`;
      options.stream.write(`\r\x1b[2K${line}`);
      drawn = true;
    },
    finish() {
      if (drawn) options.stream.write("\r\x1b[2K");
      drawn = false;
    },
  };
}

function createPlainLines(options: ProgressDisplayOptions): ProgressDisplay {
  let lastCollection: string | undefined;
  let lastLine = 0;
  return {
    update(progress) {
      const now = performance.now();
      if (progress.collection === lastCollection && now - lastLine < PLAIN_INTERVAL_MS) return;
      lastCollection = progress.collection;
      lastLine = now;
      const percent = progress.total > 0 ? ` (${progress.percentage.toFixed(1)}%)` : "";
      options.stream.write(`dbvault-agent: ${options.verb} ${progress.collection}: ${describeCounts(progress)}${percent}\n`);
    },
    finish() {},
  };
}
