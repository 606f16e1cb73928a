// Pieces several commands share: option specs, the compression option, byte counting.
import { Transform } from "node:stream";
import type { Compression } from "../archive/index.ts";
import { usageError } from "../cli-error.ts";
import type { OptionSpec, ParsedOptions } from "./parse-args.ts";

/** Options every command takes. */
export const COMMON_OPTIONS: OptionSpec = { config: "string", quiet: "boolean" };

const COMPRESSIONS: Compression[] = ["zstd", "gzip", "none"];

/** Reads --compression; undefined when absent; throws CliError (usage) on an unknown value. */
export function readCompression(command: string, options: ParsedOptions): Compression | undefined {
  const value = options.compression;
  if (value === undefined) return undefined;
  if (typeof value === "string" && (COMPRESSIONS as string[]).includes(value)) return value as Compression;
  throw usageError(`${command}: --compression must be one of ${COMPRESSIONS.join(", ")}`);
}

/** A pass-through that counts the bytes going by; never throws. */
export function createByteCounter(): Transform & { bytes: number } {
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      counter.bytes += chunk.length;
      callback(null, chunk);
    },
  }) as Transform & { bytes: number };
  counter.bytes = 0;
  return counter;
}

/** "the built-in engine" / "mongodump" for summaries; never throws. */
export function describeEngine(engine: "native" | "builtin", tool: "mongodump" | "mongorestore"): string {
  return engine === "native" ? tool : "the built-in engine";
}
