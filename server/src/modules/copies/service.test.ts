// A copy destination label is read as the agent's `copies add` reads it (protocol/s3-location.ts):
// what the agent writes is accepted, what it would refuse is refused here too.
import { expect, test } from "bun:test";
import { copyDestinationProblem } from "./service";

test.each([
  "s3://customer-offsite/dbvault/",
  "s3://customer-offsite/",
  "s3://second-bucket/?region=eu-west-1",
  "s3://customer-offsite/a/b/?endpoint=https://s3.example.net&region=eu-west-1",
])("the agent's label %p is accepted", (label) => {
  expect(copyDestinationProblem(label)).toBeNull();
});

test.each([
  ["offsite", "not a URL"],
  ["https://customer-offsite/x/", "not an s3:// URL"],
  ["s3://AKIA:secret@customer-offsite/x/", "holds credentials"],
  ["s3://customer-offsite/x/?accessKeyId=AKIA", "has parameters other than endpoint and region"],
  ["s3://customer-offsite:9000/x/", "has a port in its host (the address goes in ?endpoint=)"],
  ["s3://x/y/", "names no bucket as its host"],
  ["s3://customer-offsite/x/?endpoint=ftp://files.example.net", "has an endpoint that is not an http:// or https:// URL"],
  ["s3://customer-offsite/.hidden/", "has a prefix that is not /-separated names"],
])("%p is refused: %s", (label, problem) => {
  expect(copyDestinationProblem(label)).toBe(problem);
});
