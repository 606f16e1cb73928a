// The location part of an s3:// URL, as both the server's STORAGE_URL and the agent's copy
// destinations read it: what is accepted, and each problem in the order it is found.
import { expect, test } from "bun:test";
import { readS3Location } from "./s3-location";

const read = (text: string) => readS3Location(new URL(text), ["endpoint", "region"]);

test("bucket, prefix normalized to end in /, trimmed endpoint; no prefix is empty", () => {
  expect(read("s3://my-bucket/dbvault/prod?endpoint=%20https://s3.example.com%20&region=eu")).toEqual({
    bucket: "my-bucket",
    prefix: "dbvault/prod/",
    endpoint: "https://s3.example.com",
  });
  expect(read("s3://my-bucket")).toEqual({ bucket: "my-bucket", prefix: "" });
});

test("each problem, the first found wins", () => {
  expect(read("s3://A_/x")).toEqual({ problem: "bucket" });
  expect(read("s3://my-bucket:9000/x?nope=1")).toEqual({ problem: "port" });
  expect(read("s3://my-bucket/x?nope=1&other=2&endpoint=ftp://x")).toEqual({ problem: "unknown", names: ["nope", "other"] });
  expect(read("s3://my-bucket/../x?endpoint=ftp://x")).toEqual({ problem: "endpoint" });
  expect(read("s3://my-bucket/a/.hidden/b")).toEqual({ problem: "prefix" });
});
