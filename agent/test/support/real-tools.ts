// Running the real MongoDB Database Tools (testkit/mongo-tools.ts) from tests, and cutting an
// agent's archive into the per-collection .bson files bsondump reads.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { readMongodumpArchive } from "../../src/dump/mongodump-archive/index.ts";

/** Runs a real tool with `input` on stdin; answers its output, or throws with its stderr. */
export async function runTool(path: string, args: string[], input?: Buffer): Promise<{ stdout: Buffer; stderr: string }> {
  const child = Bun.spawn([path, ...args], { stdin: input ? new Blob([new Uint8Array(input)]) : "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).arrayBuffer(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`${path} ${args.join(" ")} exited with ${code}:\n${stderr}`);
  return { stdout: Buffer.from(stdout), stderr };
}

/** Writes each namespace's documents of a mongodump archive to `<directory>/<namespace>.bson`; returns the files with their counts. */
export async function writeBsonFiles(archive: Buffer, directory: string): Promise<Array<{ namespace: string; path: string; documents: number }>> {
  const documents = new Map<string, Buffer[]>();
  for await (const event of readMongodumpArchive([archive])) {
    if (event.kind === "document") documents.set(event.namespace, [...(documents.get(event.namespace) ?? []), Buffer.from(event.bytes)]);
    else if (event.kind === "namespace-end" && !documents.has(event.namespace)) documents.set(event.namespace, []);
  }
  const files = [];
  for (const [namespace, list] of documents) {
    const path = join(directory, `${files.length}.bson`);
    await writeFile(path, Buffer.concat(list));
    files.push({ namespace, path, documents: list.length });
  }
  return files;
}
