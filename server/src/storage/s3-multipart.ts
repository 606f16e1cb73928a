import { type S3Http, S3RequestError } from "./s3-http";

/**
 * S3's multipart upload API (Create, UploadPart, Complete, Abort), signed by aws4fetch.
 *
 * Why not Bun's own multipart `S3File.write(stream)`: Bun 1.4.5 leaves the upload behind (stored
 * and billed, invisible to listings, its id never exposed) when the body fails while
 * CreateMultipartUpload is still unanswered, and sends the abort while parts are still in flight,
 * which S3 documents may leave those parts stored (oven-sh/bun#41688, #43137). Here the upload id
 * is ours: a failure waits for every part in flight to settle, then aborts.
 */
export class S3MultipartUploader {
  constructor(private readonly http: S3Http) {}

  /**
   * Uploads `first` (a full part) and then the rest of `body` in parts of `first.byteLength` bytes,
   * with up to `queueSize` parts in flight, and completes the upload. Memory is a fixed pool of
   * queueSize + 1 part buffers, reused. On any failure, of a part or of the body itself, nothing
   * is published: the parts in flight are awaited, the upload is aborted, the error rethrown.
   */
  async upload(key: string, first: Uint8Array<ArrayBuffer>, body: PartReader, options: { queueSize: number; contentDisposition?: string }): Promise<void> {
    const headers: Record<string, string> = options.contentDisposition ? { "Content-Disposition": options.contentDisposition } : {};
    const created = await this.http.request("POST", key, { uploads: "" }, { headers });
    const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(created)?.[1];
    if (!uploadId) throw new S3RequestError("CreateMultipartUpload answered without an UploadId", undefined, 200);

    const etags: string[] = [];
    const inFlight = new Set<Promise<void>>();
    const free = Array.from({ length: options.queueSize }, () => new Uint8Array(first.byteLength));
    let partFailure: { error: unknown } | undefined;
    try {
      let buffer = first;
      let filled = first.byteLength;
      for (let number = 1; filled > 0; number++) {
        const own = buffer;
        const sent = this.uploadPart(key, uploadId, number, own.subarray(0, filled)).then(
          (etag) => void (etags[number - 1] = etag),
          (error) => void (partFailure ??= { error }),
        );
        inFlight.add(sent);
        void sent.finally(() => (inFlight.delete(sent), free.push(own)));
        if (filled < own.byteLength) break; // a short part is the last one
        while (free.length === 0 && !partFailure) await Promise.race(inFlight);
        if (partFailure) throw partFailure.error;
        buffer = free.pop()!;
        filled = await body.fill(buffer);
      }
      await Promise.all(inFlight);
      if (partFailure) throw partFailure.error;
      const list = etags.map((etag, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${etag}</ETag></Part>`).join("");
      // Complete may answer 200 and still fail, with an <Error> body; request() checks for it.
      await this.http.request("POST", key, { uploadId }, { body: `<CompleteMultipartUpload>${list}</CompleteMultipartUpload>` });
    } catch (error) {
      await Promise.allSettled(inFlight); // a part S3 stores after the abort would stay stored
      await this.abort(key, uploadId);
      throw error;
    }
  }

  private async uploadPart(key: string, uploadId: string, partNumber: number, body: Uint8Array<ArrayBuffer>): Promise<string> {
    const response = await this.http.send("PUT", key, { partNumber: String(partNumber), uploadId }, { body });
    const etag = response.headers.get("ETag");
    await response.body?.cancel();
    if (!etag) throw new S3RequestError(`UploadPart ${partNumber} answered without an ETag`, undefined, response.status);
    return etag;
  }

  /** Best effort: an upload that cannot be aborted now is left to the bucket's lifecycle rule. */
  private async abort(key: string, uploadId: string): Promise<void> {
    await this.http.request("DELETE", key, { uploadId }).catch((error) => {
      if ((error as S3RequestError).code !== "NoSuchUpload") console.warn(`S3: could not abort multipart upload of ${key}: ${(error as Error).message}`);
    });
  }
}

/** Copies a stream of chunks of any size into part buffers, one buffer at a time. */
export class PartReader {
  private pending: Uint8Array = new Uint8Array(0);
  private ended = false;

  constructor(private readonly chunks: AsyncIterator<Uint8Array>) {}

  /** Fills `buffer` from the body; fewer bytes than its length means the body ended. Throws the body's error. */
  async fill(buffer: Uint8Array): Promise<number> {
    let filled = 0;
    while (filled < buffer.byteLength) {
      if (this.pending.byteLength === 0) {
        if (this.ended) break;
        const next = await this.chunks.next();
        if (next.done) {
          this.ended = true;
          break;
        }
        this.pending = next.value;
      }
      const taken = Math.min(this.pending.byteLength, buffer.byteLength - filled);
      buffer.set(this.pending.subarray(0, taken), filled);
      filled += taken;
      this.pending = this.pending.subarray(taken);
    }
    return filled;
  }
}
