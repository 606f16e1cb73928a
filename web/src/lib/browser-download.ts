// Saving bytes the API client fetched as a file in the browser's downloads.

/** The client hands binary bodies back as an ArrayBuffer (its types say Response). */
export async function readBytes(data: unknown): Promise<ArrayBuffer> {
  if (data instanceof ArrayBuffer) return data;
  if (data instanceof Blob || data instanceof Response) return data.arrayBuffer();
  throw new Error("unexpected download body");
}

/** Saves `parts`, in order, as one file named `fileName` of media type `type`. */
export function saveFile(parts: ArrayBuffer[], fileName: string, type: string) {
  const url = URL.createObjectURL(new Blob(parts, { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // Give the browser time to start reading the blob before it is released.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
