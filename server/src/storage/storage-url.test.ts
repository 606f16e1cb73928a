import { describe, expect, test } from "bun:test";
import { createStorage, parseStorageUrl, StorageUrlError } from ".";

describe("STORAGE_URL", () => {
  test("file:// gives the filesystem backend at the absolute path", () => {
    expect(parseStorageUrl("file:///var/lib/dbvault/backups/")).toEqual({ kind: "file", root: "/var/lib/dbvault/backups" });
    expect(parseStorageUrl("file:///data/with%20space")).toEqual({ kind: "file", root: "/data/with space" });
    expect(createStorage("file:///tmp/dbvault-never-written").kind).toBe("file");
  });

  test("s3:// takes bucket, optional key prefix, endpoint, region and credentials", () => {
    expect(parseStorageUrl("s3://backups?endpoint=http://127.0.0.1:9000&region=eu-west-1&accessKeyId=AK&secretAccessKey=S%2Bk")).toEqual({
      kind: "s3",
      bucket: "backups",
      endpoint: "http://127.0.0.1:9000",
      region: "eu-west-1",
      accessKeyId: "AK",
      secretAccessKey: "S+k",
      sessionToken: undefined,
      virtualHostedStyle: false,
      keyPrefix: undefined,
    });
    expect(parseStorageUrl("s3://AK:S%2Fk@my-bucket/dbvault/prod?virtualHostedStyle=true")).toMatchObject({
      bucket: "my-bucket",
      accessKeyId: "AK",
      secretAccessKey: "S/k",
      virtualHostedStyle: true,
      keyPrefix: "dbvault/prod/",
    });
    expect(createStorage("s3://my-bucket?endpoint=http://127.0.0.1:1").kind).toBe("s3");
  });

  test("anything else fails with a clear StorageUrlError that never repeats a secret", () => {
    const cases: Array<[string, RegExp]> = [
      ["not a url", /not a URL/],
      ["http://example.com/x", /unsupported scheme "http:"/],
      ["file://relative/path", /absolute path/],
      ["file:///x?y=1", /no query/],
      ["s3://?endpoint=http://x", /bucket name/],
      ["s3://Bad_Bucket", /bucket name/],
      ["s3://bucket:9000", /endpoint=/],
      ["s3://bucket?endpont=http://x", /unknown s3:\/\/ parameter\(s\) endpont/],
      ["s3://bucket?endpoint=ftp://x", /http:\/\/ or https:\/\//],
      ["s3://bucket?accessKeyId=AK", /both accessKeyId and secretAccessKey/],
      ["s3://bucket?virtualHostedStyle=yes", /true or false/],
      ["s3://bucket/a%20b/?endpoint=http://x", /key prefix/],
    ];
    for (const [url, message] of cases) {
      expect(() => parseStorageUrl(url)).toThrow(StorageUrlError);
      expect(() => parseStorageUrl(url)).toThrow(message);
    }
    let message = "";
    try {
      parseStorageUrl("s3://AKIDSECRET:TOPSECRET@bucket?nope=1&secretAccessKey=QUERYSECRET");
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/unknown s3:\/\/ parameter/);
    expect(message).not.toMatch(/SECRET/);
  });
});
