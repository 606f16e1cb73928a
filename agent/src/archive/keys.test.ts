import { describe, expect, test } from "bun:test";
import { TEST_KEY } from "./archive-test-helpers.ts";
import { InvalidKeyError } from "./errors.ts";
import { decodeMasterKey, deriveKeyId, encodeMasterKey, generateMasterKey } from "./keys.ts";

describe("master keys", () => {
  test("generated keys are 32 random bytes", () => {
    const a = generateMasterKey();
    expect(a.length).toBe(32);
    expect(a.equals(generateMasterKey())).toBe(false);
  });

  test("text form is prefixed, checksummed and round-trips", () => {
    const text = encodeMasterKey(TEST_KEY);
    expect(text).toBe("dbvk1_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh9jDc0p");
    expect(decodeMasterKey(`  ${text}\n`).equals(TEST_KEY)).toBe(true);
  });

  test("64 hex digits are accepted (e.g. from openssl rand -hex 32)", () => {
    expect(decodeMasterKey(TEST_KEY.toString("hex")).equals(TEST_KEY)).toBe(true);
  });

  test("a mistyped key is reported as mistyped, without echoing it", () => {
    const text = encodeMasterKey(TEST_KEY);
    const typo = `${text.slice(0, 20)}${text[20] === "A" ? "B" : "A"}${text.slice(21)}`;
    const error = (() => {
      try {
        decodeMasterKey(typo);
      } catch (e) {
        return e as InvalidKeyError;
      }
    })();
    expect(error).toBeInstanceOf(InvalidKeyError);
    expect(error?.code).toBe("ARCHIVE_INVALID_KEY");
    expect(error?.message).toContain("checksum");
    expect(error?.message).not.toContain(typo.slice(6, 20));
  });

  test("wrong length or alphabet is rejected", () => {
    expect(() => decodeMasterKey("dbvk1_short")).toThrow(InvalidKeyError);
    expect(() => decodeMasterKey("hunter2")).toThrow(InvalidKeyError);
    expect(() => decodeMasterKey(`dbvk1_${"!".repeat(48)}`)).toThrow(InvalidKeyError);
    expect(() => encodeMasterKey(Buffer.alloc(16))).toThrow(InvalidKeyError);
  });

  test("the key id depends on the key and reveals none of it", () => {
    const id = deriveKeyId(TEST_KEY);
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(TEST_KEY.toString("hex")).not.toContain(id.slice(0, 8));
    expect(deriveKeyId(generateMasterKey())).not.toBe(id);
  });
});
