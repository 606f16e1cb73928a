// dbvault-agent encrypt --in ARCHIVE --out FILE: seal an existing mongodump archive (e.g. from
// `mongodump --archive=FILE`, gzip-compressed or not) into a .enc.dbvault file. The archive is
// parsed on its way through, so a damaged one is refused instead of being sealed.
import { readSealingKey } from "../config.ts";
import { formatBytes, pluralize } from "../ui/format.ts";
import type { CommandContext } from "./context.ts";
import { createOutput, openInput } from "./files.ts";
import { parseOptions, requireString } from "./parse-args.ts";
import { sealArchive } from "./seal-archive.ts";
import { COMMON_OPTIONS, readCompression } from "./shared.ts";

const OPTIONS = { ...COMMON_OPTIONS, in: "string", out: "string", compression: "string", force: "boolean" } as const;

/** Runs `encrypt`; returns the exit code or throws what describeFailure reports. */
export async function runEncryptCommand(args: string[], context: CommandContext): Promise<number> {
  const options = parseOptions("encrypt", args, OPTIONS);
  const inPath = requireString("encrypt", options, "in", "ARCHIVE (a mongodump archive, or - for stdin)");
  const outPath = requireString("encrypt", options, "out", "FILE (or - for stdout)");
  const compression = readCompression("encrypt", options);
  const { config, path } = await context.loadConfig(options.config);
  const sealingKey = readSealingKey(config, path);
  const input = await openInput(inPath, context.io);
  const output = await createOutput(outPath, context.io, options.force === true);
  try {
    const sealed = await sealArchive({
      input,
      write: (buffers) => output.write(buffers),
      ...(output.writeBehind ? { writeBehind: (buffers: readonly Uint8Array[]) => output.writeBehind!(buffers) } : {}),
      sealingKey,
      compression: compression ?? config.compression ?? "zstd",
      onGzip: () => context.say("the input is gzip-compressed (mongodump --gzip); it is sealed decompressed"),
    });
    input.close();
    await output.commit();
    context.say(
      `sealed ${pluralize(sealed.documents, "document")} in ${pluralize(sealed.namespaces, "namespace")} from ${input.label} into ${output.label} ` +
        `(${formatBytes(sealed.bytes)}, key id ${sealed.header.keyId})`,
    );
    return 0;
  } catch (error) {
    await output.discard();
    input.close();
    throw error;
  }
}
