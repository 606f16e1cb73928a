// dbvault-agent verify --in FILE [--json]: decrypt and parse a whole backup without restoring it:
// every chunk authenticated, every namespace's CRC checked. Prints the namespaces and counts;
// --json prints exactly {"namespaces":{"db.collection":count,...}}. A time-series collection is
// listed under its own name (its documents travel as db.system.buckets.<name>), counting buckets.
import { pipeline } from "node:stream/promises";
import { createDecryptStream } from "../archive/index.ts";
import { type NamespaceSummary, summarizeArchive } from "../dump/mongodump-archive/index.ts";
import { formatBytes, formatCount, pluralize } from "../ui/format.ts";
import type { CommandContext } from "./context.ts";
import { loadMasterKeyConfig } from "./master-key.ts";
import { openInput } from "./files.ts";
import { parseOptions, requireString } from "./parse-args.ts";
import { COMMON_OPTIONS } from "./shared.ts";

const OPTIONS = { ...COMMON_OPTIONS, in: "string", json: "boolean", identity: "string" } as const;

/** Runs `verify`; returns the exit code or throws what describeFailure reports. */
export async function runVerifyCommand(args: string[], context: CommandContext): Promise<number> {
  const options = parseOptions("verify", args, OPTIONS);
  const inPath = requireString("verify", options, "in", "FILE (a .enc.dbvault backup, or - for stdin)");
  const { keyring, identities } = await loadMasterKeyConfig(context, options.config, options.identity);
  const input = await openInput(inPath, context.io);
  const decrypt = createDecryptStream({ masterKey: keyring, identities });
  let fileBytes = 0;
  input.stream.on("data", (chunk: Buffer) => (fileBytes += chunk.length));
  pipeline(input.stream, decrypt).catch((error: Error) => decrypt.destroy(error));
  let summary;
  try {
    summary = await summarizeArchive(decrypt);
  } finally {
    decrypt.destroy();
    input.stream.destroy();
  }
  const header = await decrypt.header;
  const out = context.io.stdout;
  const listed = summary.namespaces.map(describeNamespace);
  if (options.json === true) {
    const namespaces = Object.fromEntries(listed.map((entry) => [entry.name, entry.count]));
    out.write(`${JSON.stringify({ namespaces })}\n`);
    return 0;
  }
  const width = Math.max(0, ...listed.map((entry) => entry.name.length));
  const lines = [
    `file:         ${input.label} (${formatBytes(fileBytes)})`,
    `created at:   ${header.createdAt.toISOString()}`,
    `compression:  ${header.compression}`,
    `key id:       ${header.keyId}`,
    `archive:      written by ${summary.header.toolVersion || "unknown tool"} from mongodb ${summary.header.serverVersion}`,
    "namespaces:",
    ...listed.map((entry) => `  ${entry.name.padEnd(width)}  ${formatCount(entry.count).padStart(12)} ${entry.unit}`),
    `ok: ${pluralize(summary.totalDocuments, "document")} in ${pluralize(summary.namespaces.length, "namespace")}; every chunk and checksum verified`,
  ];
  out.write(`${lines.join("\n")}\n`);
  return 0;
}

/** How one namespace is listed: a time-series collection by its own name, counting its buckets. */
function describeNamespace(entry: NamespaceSummary): { name: string; count: number; unit: string } {
  const count = entry.documentCount;
  if (entry.metadata?.type === "timeseries") {
    return { name: entry.metadata.namespace, count, unit: count === 1 ? "time-series bucket" : "time-series buckets" };
  }
  return { name: entry.namespace, count, unit: count === 1 ? "document" : "documents" };
}
