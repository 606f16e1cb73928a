import { describe, expect, test } from "bun:test";
import { StorageUnavailableError } from "./errors";
import { storageFailureReason } from "./failure-reason";

const systemError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe("the cause of a storage failure, for the user", () => {
  test("a full disk, found down the chain of causes, without the path the system's message names", () => {
    const error = new StorageUnavailableError(
      "storage directory /var/lib/dbvault/backups: ENOSPC: no space left on device, write",
      systemError("ENOSPC", "ENOSPC: no space left on device, write '/var/lib/dbvault/backups/.uploads/x'"),
    );
    expect(error.reason).toBe("no space left on device");
    expect(storageFailureReason(new Error("wrapped", { cause: error }))).toBe("no space left on device");
  });

  test("the file system's other refusals", () => {
    expect(storageFailureReason(systemError("EROFS", "x"))).toBe("read-only file system");
    expect(storageFailureReason(systemError("EACCES", "x"))).toBe("permission denied");
    expect(storageFailureReason(systemError("EDQUOT", "x"))).toBe("disk quota exceeded");
  });

  test("an S3 endpoint out of reach, in Node's codes and Bun's", () => {
    expect(storageFailureReason(systemError("ECONNREFUSED", "connect ECONNREFUSED 10.0.0.5:9000"))).toBe("the S3 endpoint refused the connection");
    expect(storageFailureReason(Object.assign(systemError("ConnectionRefused", "x"), { name: "S3Error" }))).toBe("the S3 endpoint refused the connection");
    expect(storageFailureReason(systemError("ENOTFOUND", "getaddrinfo ENOTFOUND s3.internal"))).toBe("the S3 endpoint's host name could not be resolved");
    expect(storageFailureReason(Object.assign(new Error("timed out"), { name: "TimeoutError" }))).toBe("the S3 endpoint did not answer in time");
  });

  test("S3's own answers: its code, never its message (it may name the bucket or key)", () => {
    const s3 = (code: string) => Object.assign(new Error(`The bucket my-secret-bucket says ${code}`), { name: "S3Error", code });
    expect(storageFailureReason(s3("SlowDown"))).toBe("S3 answered SlowDown");
    expect(storageFailureReason(s3("AccessDenied"))).toBe("S3 refused the server's access keys (AccessDenied)");
    expect(storageFailureReason(s3("NoSuchBucket"))).toBe("the S3 bucket does not exist (NoSuchBucket)");
    expect(storageFailureReason(s3("not a code; bucket=x"))).toBeNull();
    const http = Object.assign(new Error("x"), { name: "S3RequestError", status: 502, code: undefined });
    expect(storageFailureReason(http)).toBe("S3 answered HTTP 502");
  });

  test("nothing known: null, and the generic message stands", () => {
    expect(storageFailureReason(new Error("something odd"))).toBeNull();
    expect(storageFailureReason(undefined)).toBeNull();
    expect(new StorageUnavailableError("x").reason).toBeNull();
  });
});
