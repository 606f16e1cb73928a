import { AwsClient } from "aws4fetch";

/** Retries of a request S3 answered with 5xx or 429 (it asks for exactly that). */
const RETRIES = 3;

/** Where a bucket is and how to sign for it; the same fields Bun's S3Client takes. */
export type S3Target = {
  bucket: string;
  /** Any S3-compatible service; empty: AWS, from the region. */
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
 * Signed requests (aws4fetch) to one bucket, for the S3 calls Bun's client does not offer:
 * multipart uploads driven by us, Object Lock retention, object versions, bucket settings.
 */
export class S3Http {
  private readonly client: AwsClient;
  private readonly baseUrl: string;

  constructor(target: S3Target) {
    const { accessKeyId = "", secretAccessKey = "", sessionToken, virtualHostedStyle } = target;
    const region = target.region ?? "us-east-1";
    this.client = new AwsClient({ accessKeyId, secretAccessKey, sessionToken, region, service: "s3" });
    const endpoint = new URL(target.endpoint ?? `https://s3.${region}.amazonaws.com`);
    const root = endpoint.origin + endpoint.pathname.replace(/\/+$/, "");
    this.baseUrl = virtualHostedStyle ? `${endpoint.protocol}//${target.bucket}.${endpoint.host}` : `${root}/${target.bucket}`;
  }

  /** The answer's body; throws S3RequestError for an error answer (also a 200 with an <Error> body, as Complete may give). */
  async request(
    method: string,
    key: string,
    query: Record<string, string>,
    init: { headers?: Record<string, string>; body?: string | Uint8Array<ArrayBuffer> } = {},
  ): Promise<string> {
    const response = await this.send(method, key, query, init);
    const text = await response.text();
    if (/<Error>/.test(text)) throw errorFromBody(text, response);
    return text;
  }

  /** A presigned GET of `key` (with `query`, e.g. a versionId) valid for `expiresIn` seconds. */
  async presignGet(key: string, query: Record<string, string>, expiresIn: number): Promise<string> {
    const url = new URL(`${this.baseUrl}/${key.split("/").map(encodeURIComponent).join("/")}`);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    url.searchParams.set("X-Amz-Expires", String(expiresIn));
    return (await this.client.sign(url.toString(), { method: "GET", aws: { signQuery: true } })).url;
  }

  /** Sends a request about `key` ("" for the bucket itself), retrying 5xx and 429; throws S3RequestError for an error answer. */
  async send(
    method: string,
    key: string,
    query: Record<string, string>,
    init: { headers?: Record<string, string>; body?: string | Uint8Array<ArrayBuffer> } = {},
  ): Promise<Response> {
    const url = new URL(`${this.baseUrl}/${key.split("/").map(encodeURIComponent).join("/")}`);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    let response: Response | undefined;
    for (let attempt = 0; ; attempt++) {
      // Signed without the body (S3 takes UNSIGNED-PAYLOAD): the part goes to fetch as is, not
      // copied into a signed Request first; a part in flight then costs its own bytes only.
      const signed = await this.client.sign(url.toString(), { method, headers: init.headers });
      response = await fetch(signed.url, { method, headers: signed.headers, body: init.body });
      if (response.ok || attempt >= RETRIES || (response.status < 500 && response.status !== 429)) break;
      await response.body?.cancel();
      await Bun.sleep(100 * 2 ** attempt);
    }
    if (response.ok) return response;
    throw errorFromBody(await response.text().catch(() => ""), response);
  }
}

/** The S3RequestError an error answer describes (its <Code> and <Message>), or its HTTP status. */
function errorFromBody(text: string, response: Response): S3RequestError {
  const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1];
  const message = /<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? ((!response.ok && response.statusText) || "request failed");
  return new S3RequestError(`${code ?? `HTTP ${response.status}`}: ${message}`, code, response.status);
}
