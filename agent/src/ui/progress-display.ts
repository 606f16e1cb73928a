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
  /**
   * Progress "collections" that are steps of the work, not collections (the restore's whole-file
   * check), with the words to show for them: "verifying the backup: 42.0%", not
   * "restoring Verifying backup…: 0 documents".
   */
  steps?: Record<string, string>;
}

const BAR_WIDTH = 24;
const PLAIN_INTERVAL_MS = 10_000;

/** Returns a display that writes to `stream`; does nothing when quiet. Never throws. */
export function createProgressDisplay(options: ProgressDisplayOptions): ProgressDisplay {
  if (options.quiet) return { update() {}, finish() {} };
  return options.isTTY ? createBar(options) : createPlainLines(options);
}

function describeCounts(progress: Progress): string {
  return progress.total > 0 ? `${formatCount(progress.current)}/${formatCount(progress.total)} documents` : `${formatCount(progress.current)} documents`;
}

/** The step a progress report stands for, when it is one (options.steps); undefined for a collection. */
function findStep(options: ProgressDisplayOptions, progress: Progress): string | undefined {
  return options.steps && Object.hasOwn(options.steps, progress.collection) ? options.steps[progress.collection] : undefined;
}

function createBar(options: ProgressDisplayOptions): ProgressDisplay {
  let drawn = false;
  return {
    update(progress) {
      const filled = Math.round((Math.min(100, progress.percentage) / 100) * BAR_WIDTH);
      const bar = `[${"#".repeat(filled)}${".".repeat(BAR_WIDTH - filled)}]`;
      const percent = `${progress.percentage.toFixed(1).padStart(5)}%`;
      const step = findStep(options, progress);
      let line = step === undefined ? `${options.verb} ${bar} ${percent}  ${describeCounts(progress)}  ${progress.collection}` : `${step} ${bar} ${percent}`;
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
      const step = findStep(options, progress);
      // A step's start is already announced by the command's own message; its share done is news.
      if (step !== undefined && progress.percentage === 0) return;
      if (progress.collection === lastCollection && now - lastLine < PLAIN_INTERVAL_MS) return;
      lastCollection = progress.collection;
      lastLine = now;
      if (step !== undefined) {
        options.stream.write(`dbvault-agent: ${step}: ${progress.percentage.toFixed(1)}%\n`);
        return;
      }
      const percent = progress.total > 0 ? ` (${progress.percentage.toFixed(1)}%)` : "";
      options.stream.write(`dbvault-agent: ${options.verb} ${progress.collection}: ${describeCounts(progress)}${percent}\n`);
    },
    finish() {},
  };
}
