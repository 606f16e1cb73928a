// Files built into the single-file server with `bun build --compile --asset` (scripts/build-server.ts).
// Bun's embedded files are Blobs that carry their name: a folder's files keep the folder's own
// name as a prefix (`dist/assets/x.js`), a single file is embedded under its base name.

/** The embedded name of a file; "" for a Blob without one. */
export function embeddedNameOf(file: Blob): string {
  return (file as Blob & { name?: string }).name ?? "";
}

/** The embedded file called `name`; null when not compiled or not embedded. */
export function findEmbeddedFile(name: string, embedded: readonly Blob[] = Bun.embeddedFiles): Blob | null {
  return embedded.find((file) => embeddedNameOf(file) === name) ?? null;
}
