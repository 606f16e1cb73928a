// dbvault-agent decrypt --in FILE --out ARCHIVE: turn a .enc.dbvault file into the plain
// mongodump archive inside it, uncompressed, for `mongorestore --archive=ARCHIVE` anywhere. Needs
// only the key. To stdout it verifies the whole file before writing a byte (verify-first.ts,
// DECRYPT_HELP).
import { formatBytes } from "../ui/format.ts";
import { CliError, EXIT, usageError } from "../cli-error.ts";
import type { CommandContext } from "./context.ts";
import { loadMasterKeyConfig } from "./master-key.ts";
import { createOutput, openInput } from "./files.ts";
import { parseOptions, requireString } from "./parse-args.ts";
import { openSealedFile } from "./open-sealed.ts";
import { COMMON_OPTIONS } from "./shared.ts";
import { fetchFromCopy } from "./from-copy.ts";
import { openVerifiedInput } from "./verify-first.ts";

const OPTIONS = {
  ...COMMON_OPTIONS,
  in: "string",
  out: "string",
  force: "boolean",
  "verify-first": "boolean",
  "no-verify-first": "boolean",
  "from-copy": "boolean",
  identity: "string",
} as const;

/** Runs `decrypt`; returns the exit code or throws what describeFailure reports. */
export async function runDecryptCommand(args: string[], context: CommandContext): Promise<number> {
  const options = parseOptions("decrypt", args, OPTIONS);
  const named = requireString("decrypt", options, "in", "FILE (a .enc.dbvault backup, or - for stdin)");
  const outPath = requireString("decrypt", options, "out", "ARCHIVE (or - for stdout)");
  if (outPath === "-" && context.io.stdoutIsTTY) {
    throw new CliError("refusing to write a binary archive to the terminal", EXIT.usage, "redirect stdout to a file, or give --out a file name");
  }
  if (options["verify-first"] && options["no-verify-first"]) throw usageError("decrypt: --verify-first and --no-verify-first cannot be given together");
  // A file is written aside and renamed only when whole; a stream cannot take back what it was sent.
  const verifyFirst = options["verify-first"] === true || (outPath === "-" && options["no-verify-first"] !== true);
  const { keyring, identities, config, path } = await loadMasterKeyConfig(context, options.config, options.identity);
  const fromCopy = options["from-copy"] === true ? await fetchFromCopy("decrypt", config, path, named, context) : undefined;
  try {
    return await decryptFile(fromCopy?.path ?? named, outPath, verifyFirst, options.force === true, { keyring, identities }, context);
  } finally {
    await fromCopy?.discard();
  }
}

async function decryptFile(
  inPath: string,
  outPath: string,
  verifyFirst: boolean,
  force: boolean,
  keys: { keyring: Uint8Array[]; identities: Uint8Array[] },
  context: CommandContext,
): Promise<number> {
  const verified = verifyFirst ? await openVerifiedInput(inPath, context.io, keys.keyring, keys.identities) : null;
  const input = verified?.input ?? (await openInput(inPath, context.io));
  const release = verified?.release ?? (async () => input.close());
  let output;
  let opened;
  try {
    output = await createOutput(outPath, context.io, force);
    opened = await openSealedFile({ input, write: (buffers) => output!.write(buffers), masterKey: keys.keyring, identities: keys.identities });
    await release();
    await output.commit();
  } catch (error) {
    await output?.discard();
    await release();
    throw error;
  }
  // The file does not record whether its archive was gzip-compressed when sealed (encrypt
  // decompresses it), so the output is always plain, and says so.
  const checked = verifyFirst ? " (every chunk verified before the first byte was written)" : "";
  const made = `decrypted ${input.label} (made ${opened.header.createdAt.toISOString()}) into ${output.label}: ${formatBytes(opened.bytes)}`;
  if (opened.header.payloadKind === "oplog-slice") {
    // A slice of continuous shipping holds oplog entries as concatenated BSON, the form of a dump's oplog.bson.
    context.say(`${made} of oplog entries (BSON)${checked}`);
    if (outPath !== "-") context.say(`replay it with: mongorestore --oplogReplay --oplogFile=${output.label} DUMP_DIRECTORY`);
    return 0;
  }
  context.say(`${made} of uncompressed mongodump archive${checked} (encrypt seals mongodump --gzip archives decompressed: restore it without --gzip)`);
  if (outPath !== "-") context.say(`restore it with: mongorestore --archive=${output.label}`);
  return 0;
}
