// dbvault-agent encrypt --in ARCHIVE --out FILE: seal an existing mongodump archive (e.g. from
// `mongodump --archive=FILE`, gzip-compressed or not) into a .enc.dbvault file. The archive is
// parsed on its way through, so a damaged one is refused instead of being sealed.
import { pipeline } from "node:stream/promises";
import { Readable, type Writable } from "node:stream";
import { createGunzip } from "node:zlib";
import { readMasterKey } from "../config.ts";
import { createEncryptStream } from "../archive/index.ts";
import { readMongodumpArchive } from "../dump/mongodump-archive/index.ts";
import { formatBytes, pluralize } from "../ui/format.ts";
import type { CommandContext } from "./context.ts";
import { createOutput, openInput } from "./files.ts";
import { parseOptions, requireString } from "./parse-args.ts";
import { COMMON_OPTIONS, createByteCounter, readCompression } from "./shared.ts";

const OPTIONS = { ...COMMON_OPTIONS, in: "string", out: "string", compression: "string", force: "boolean" } as const;

/** Runs `encrypt`; returns the exit code or throws what describeFailure reports. */
export async function runEncryptCommand(args: string[], context: CommandContext): Promise<number> {
  const options = parseOptions("encrypt", args, OPTIONS);
  const inPath = requireString("encrypt", options, "in", "ARCHIVE (a mongodump archive, or - for stdin)");
  const outPath = requireString("encrypt", options, "out", "FILE (or - for stdout)");
  const compression = readCompression("encrypt", options);
  const { config, path } = await context.loadConfig(options.config);
  const masterKey = readMasterKey(config, path);
  const input = await openInput(inPath, context.io);
  const output = await createOutput(outPath, context.io, options.force === true);
  const encrypt = createEncryptStream({ masterKey, compression: compression ?? config.compression ?? "zstd" });
  const counter = createByteCounter();
  const writing = pipeline(encrypt, counter, output.stream);
  writing.catch(() => undefined);
  try {
    let namespaces = 0;
    let documents = 0;
    const plain = readPlainArchive(input.stream, () => context.say("the input is gzip-compressed (mongodump --gzip); it is sealed decompressed"));
    for await (const event of readMongodumpArchive(forwardInto(plain, encrypt))) {
      if (event.kind === "namespace-end") namespaces++;
      else if (event.kind === "document") documents++;
    }
    encrypt.end();
    await writing;
    await output.commit();
    context.say(
      `sealed ${pluralize(documents, "document")} in ${pluralize(namespaces, "namespace")} from ${input.label} into ${output.label} ` +
        `(${formatBytes(counter.bytes)}, key id ${encrypt.header.keyId})`,
    );
    return 0;
  } catch (error) {
    encrypt.destroy();
    await writing.catch(() => undefined);
    await output.discard();
    input.stream.destroy();
    throw error;
  }
}

/** Yields the input's bytes, gunzipped when it starts with the gzip magic (mongodump --archive --gzip). */
async function* readPlainArchive(source: AsyncIterable<Uint8Array>, onGzip: () => void): AsyncGenerator<Uint8Array> {
  const iterator = source[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) return;
  async function* all(): AsyncGenerator<Uint8Array> {
    yield first.value;
    for (;;) {
      const step = await iterator.next();
      if (step.done) return;
      yield step.value;
    }
  }
  if (first.value[0] === 0x1f && first.value[1] === 0x8b) {
    onGzip();
    yield* Readable.from(all()).pipe(createGunzip());
  } else {
    yield* all();
  }
}

/** Writes each chunk into `target` (waiting for room) before passing it on to the parser. */
async function* forwardInto(source: AsyncIterable<Uint8Array>, target: Writable): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) {
    if (!target.write(chunk)) await waitForDrain(target);
    yield chunk;
  }
}

function waitForDrain(target: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      target.off("drain", onDrain);
      target.off("close", onClose);
    };
    const onDrain = () => {
      cleanup();
      resolve();
    };
    const onClose = () => {
      cleanup();
      reject(target.errored ?? new Error("the output closed before the input was written"));
    };
    target.on("drain", onDrain);
    target.on("close", onClose);
  });
}
