import { AwsClient } from "aws4fetch";

/** Where a bucket is and how to sign for it; the same fields Bun's S3Client takes. */
export type S3Target = {
  bucket: string;
  endpoint?: string;
  region?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
  virtualHostedStyle?: boolean;
};

/** An error answer of S3 (or a malformed one), with S3's error code when it gave one. */
export class S3RequestError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly status: number,
  ) {
    super(message);
    this.name = "S3RequestError";
  }
}

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
  private readonly client: AwsClient;
  private readonly baseUrl: string;

  constructor(target: S3Target) {
    const env = process.env;
    // The same environment fallbacks as Bun's S3Client, so both sign with the same credentials.
    const accessKeyId = target.accessKeyId ?? env.S3_ACCESS_KEY_ID ?? env.AWS_ACCESS_KEY_ID ?? "";
    const secretAccessKey = target.secretAccessKey ?? env.S3_SECRET_ACCESS_KEY ?? env.AWS_SECRET_ACCESS_KEY ?? "";
    const sessionToken = target.sessionToken ?? env.S3_SESSION_TOKEN ?? env.AWS_SESSION_TOKEN;
    const region = target.region ?? env.S3_REGION ?? env.AWS_REGION ?? "us-east-1";
    this.client = new AwsClient({ accessKeyId, secretAccessKey, sessionToken, region, service: "s3", retries: 3 });
    const endpoint = new URL(target.endpoint ?? env.S3_ENDPOINT ?? env.AWS_ENDPOINT ?? `https://s3.${region}.amazonaws.com`);
    const root = endpoint.origin + endpoint.pathname.replace(/\/+$/, "");
    this.baseUrl = target.virtualHostedStyle ? `${endpoint.protocol}//${target.bucket}.${endpoint.host}` : `${root}/${target.bucket}`;
  }

  /**
   * Uploads `parts` (each but the last at least 5 MiB, as S3 requires) with up to `queueSize`
   * parts in flight, and completes the upload. On any failure, of a part or of `parts` itself,
   * nothing is published: the in-flight parts are awaited, the upload is aborted, the error rethrown.
   */
  async upload(key: string, parts: AsyncIterable<Uint8Array>, options: { queueSize: number; contentDisposition?: string }): Promise<void> {
    const headers: Record<string, string> = options.contentDisposition ? { "Content-Disposition": options.contentDisposition } : {};
    const created = await this.request("POST", key, { uploads: "" }, { headers });
    const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(created)?.[1];
    if (!uploadId) throw new S3RequestError("CreateMultipartUpload answered without an UploadId", undefined, 200);

    const etags: string[] = [];
    const inFlight = new Set<Promise<void>>();
    let partFailure: { error: unknown } | undefined;
    try {
      let partNumber = 0;
      for await (const part of parts) {
        const number = ++partNumber;
        const sent = this.uploadPart(key, uploadId, number, part).then(
          (etag) => void (etags[number - 1] = etag),
          (error) => void (partFailure ??= { error }),
        );
        inFlight.add(sent);
        void sent.finally(() => inFlight.delete(sent));
        while (inFlight.size >= options.queueSize && !partFailure) await Promise.race(inFlight);
        if (partFailure) throw partFailure.error;
      }
      await Promise.all(inFlight);
      if (partFailure) throw partFailure.error;
      const list = etags.map((etag, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${etag}</ETag></Part>`).join("");
      // Complete may answer 200 and still fail, with an <Error> body; request() checks for it.
      await this.request("POST", key, { uploadId }, { body: `<CompleteMultipartUpload>${list}</CompleteMultipartUpload>` });
    } catch (error) {
      await Promise.allSettled(inFlight); // a part S3 stores after the abort would stay stored
      await this.abort(key, uploadId);
      throw error;
    }
  }

  private async uploadPart(key: string, uploadId: string, partNumber: number, body: Uint8Array): Promise<string> {
    const response = await this.send("PUT", key, { partNumber: String(partNumber), uploadId }, { body });
    const etag = response.headers.get("ETag");
    await response.body?.cancel();
    if (!etag) throw new S3RequestError(`UploadPart ${partNumber} answered without an ETag`, undefined, response.status);
    return etag;
  }

  /** Best effort: an upload that cannot be aborted now is left to the bucket's lifecycle rule. */
  private async abort(key: string, uploadId: string): Promise<void> {
    await this.request("DELETE", key, { uploadId }).catch((error) => {
      if ((error as S3RequestError).code !== "NoSuchUpload") console.warn(`S3: could not abort multipart upload of ${key}: ${(error as Error).message}`);
    });
  }

  private async request(method: string, key: string, query: Record<string, string>, init: { headers?: Record<string, string>; body?: string } = {}): Promise<string> {
    const response = await this.send(method, key, query, init);
    const text = await response.text();
    const code = /<Error>[\s\S]*?<Code>([^<]+)<\/Code>/.exec(text)?.[1];
    if (code) throw new S3RequestError(`${code}: ${/<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? "request failed"}`, code, response.status);
    return text;
  }

  private async send(method: string, key: string, query: Record<string, string>, init: { headers?: Record<string, string>; body?: string | Uint8Array } = {}): Promise<Response> {
    const url = new URL(`${this.baseUrl}/${key.split("/").map(encodeURIComponent).join("/")}`);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    const response = await this.client.fetch(url.toString(), { method, headers: init.headers, body: init.body });
    if (response.ok) return response;
    const text = await response.text().catch(() => "");
    const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1];
    throw new S3RequestError(`${code ?? `HTTP ${response.status}`}: ${/<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? response.statusText}`, code, response.status);
  }
}

/** Regroups a stream of chunks into parts of exactly `partSize` bytes (the last one may be shorter). */
export async function* partsOf(chunks: AsyncIterable<Uint8Array>, partSize: number): AsyncGenerator<Uint8Array> {
  let part = new Uint8Array(partSize);
  let filled = 0;
  for await (let chunk of chunks) {
    while (chunk.byteLength > 0) {
      const taken = Math.min(chunk.byteLength, partSize - filled);
      part.set(chunk.subarray(0, taken), filled);
      filled += taken;
      chunk = chunk.subarray(taken);
      if (filled === partSize) {
        yield part;
        part = new Uint8Array(partSize);
        filled = 0;
      }
    }
  }
  if (filled > 0) yield part.subarray(0, filled);
}
