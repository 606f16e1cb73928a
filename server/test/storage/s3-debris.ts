import { S3Client } from "bun";
import type { S3Server } from "../../../testkit/s3-server";

/** What unfinished writes left under `keyPrefix` of the test S3 server: multipart uploads, and staged upload parts. */
export async function s3Debris(server: S3Server, keyPrefix: string): Promise<string[]> {
  const raw = new S3Client({ endpoint: server.endpoint, bucket: server.bucket, accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey });
  return [...(await server.pendingUploads()), ...((await raw.list({ prefix: `${keyPrefix}.uploads/` })).contents ?? []).map((item) => item.key)];
}
