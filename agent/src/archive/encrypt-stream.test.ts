// The encrypting stream's back-pressure: writers told to wait must all be let go once the reader
// catches up. A dump writes from two collections at once, so two writers can be waiting together;
// with one slot for them, the first was forgotten and its collection never finished (a
// `dump --compression none` of a database with many collections hung for good).
import { describe, expect, test } from "bun:test";
import { generateMasterKey } from "./keys.ts";
import { createEncryptStream } from "./encrypt-stream.ts";
import { createDecryptStream } from "./decrypt-stream.ts";

const CHUNK = 4096;

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

describe("encrypt stream back-pressure", () => {
  test("every writer waiting for room is released by the next read, not only the last one", async () => {
    const masterKey = generateMasterKey();
    const encrypt = createEncryptStream({ masterKey, compression: "none", chunkSize: CHUNK });
    const first = new Uint8Array(3 * CHUNK).fill(1);
    const second = new Uint8Array(3 * CHUNK).fill(2);
    // Nobody reads yet: both writes fill the readable side past its mark and must wait.
    const waitFirst = encrypt.writeCopied(first);
    const waitSecond = encrypt.writeCopied(second);
    expect(waitFirst).toBeInstanceOf(Promise);
    expect(waitSecond).toBeInstanceOf(Promise);
    const released: string[] = [];
    void waitFirst?.then(() => released.push("first"));
    void waitSecond?.then(() => released.push("second"));

    const ciphertext = readAll(encrypt);
    await Promise.all([waitFirst, waitSecond]);
    expect(released.sort()).toEqual(["first", "second"]);
    encrypt.end();

    const decrypt = createDecryptStream({ masterKey });
    decrypt.end(await ciphertext);
    const plaintext = await readAll(decrypt);
    expect(plaintext.equals(Buffer.concat([first, second]))).toBe(true);
  });

  test("waiting writers are released when the stream is destroyed", async () => {
    const encrypt = createEncryptStream({ masterKey: generateMasterKey(), compression: "none", chunkSize: CHUNK });
    const waits = [encrypt.writeCopied(new Uint8Array(3 * CHUNK)), encrypt.writeCopied(new Uint8Array(3 * CHUNK))];
    expect(waits.every((wait) => wait instanceof Promise)).toBe(true);
    encrypt.destroy();
    await Promise.all(waits);
  });
});
