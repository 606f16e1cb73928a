// Which public release key the server trusts (it holds no signing key of its own to use): the
// order of RELEASE_PUBLIC_KEY, RELEASE_SIGNING_KEY, the release compiled into the single-file
// server and the data directory's key, and that a server given only the public key writes none.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { SIGNED_RELEASE_FILE } from "@protocol/signed-release";
import { type ConfigError, loadConfig } from "../config";
import { createTestReleaseKey } from "../../../testkit/signed-agent-release";
import { publicKeyOfSeed, resolveReleaseKey } from "./release-key";

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "dbvault-release-key-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

test("RELEASE_PUBLIC_KEY, else RELEASE_SIGNING_KEY's public half, else the compiled-in release's key, else the data directory's", async () => {
  const seed = randomBytes(32).toString("base64");
  const publicKey = createTestReleaseKey().publicKey;
  const compiledKey = createTestReleaseKey().publicKey;
  const compiled = [Object.assign(new Blob([JSON.stringify({ publicKey: compiledKey, manifest: "", signature: "" })]), { name: SIGNED_RELEASE_FILE })];
  const base = { releasePublicKey: null, releaseSigningKey: null };

  const withPublic = freshDir();
  expect((await resolveReleaseKey({ ...base, dataDir: withPublic, releasePublicKey: publicKey, releaseSigningKey: seed }, compiled)).publicKey).toBe(publicKey);
  expect(existsSync(join(withPublic, "secrets.json"))).toBe(false);
  expect((await resolveReleaseKey({ ...base, dataDir: freshDir(), releaseSigningKey: seed }, compiled)).publicKey).toBe(publicKeyOfSeed(seed));
  const withCompiled = freshDir();
  expect(await resolveReleaseKey({ ...base, dataDir: withCompiled }, compiled)).toEqual({
    publicKey: compiledKey,
    source: "the release compiled into this server",
  });
  expect(existsSync(join(withCompiled, "secrets.json"))).toBe(false);

  const plain = freshDir();
  const first = await resolveReleaseKey({ ...base, dataDir: plain }, []);
  const stored = await Bun.file(join(plain, "secrets.json")).json();
  expect(first.publicKey).toBe(publicKeyOfSeed(stored.releaseSigningKey));
  expect((await resolveReleaseKey({ ...base, dataDir: plain }, [])).publicKey).toBe(first.publicKey);
});

test("a RELEASE_PUBLIC_KEY that is not RELEASE_SIGNING_KEY's public half, or not a key, stops the start", () => {
  const seed = randomBytes(32).toString("base64");
  const problemsOf = (env: Record<string, string>) => {
    try {
      loadConfig({ DATA_DIR: freshDir(), ...env });
      return [];
    } catch (error) {
      return (error as ConfigError).problems;
    }
  };
  expect(problemsOf({ RELEASE_SIGNING_KEY: seed, RELEASE_PUBLIC_KEY: publicKeyOfSeed(seed) })).toEqual([]);
  expect(problemsOf({ RELEASE_SIGNING_KEY: seed, RELEASE_PUBLIC_KEY: createTestReleaseKey().publicKey })).toEqual([
    "RELEASE_PUBLIC_KEY is not the public half of RELEASE_SIGNING_KEY: give the server only RELEASE_PUBLIC_KEY",
  ]);
  expect(problemsOf({ RELEASE_PUBLIC_KEY: "not-a-key" })).toEqual([
    "RELEASE_PUBLIC_KEY must be an Ed25519 public key: 32 bytes in base64 (44 characters ending in =), as npm run build:agent prints it",
  ]);
});
