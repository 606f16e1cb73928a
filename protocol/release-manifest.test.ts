import { expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import {
  decodePublicKey,
  encodePublicKey,
  ManifestError,
  parseManifest,
  renderManifest,
  SEMVER,
  signingKeyFromSeed,
  signManifest,
  verifyManifest,
} from "./release-manifest";

// RFC 8032, section 7.1, TEST 1: the seed, its public key, and the signature of the empty message.
const RFC_SEED = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const RFC_PUBLIC = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
const RFC_SIGNATURE = "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b";

test("keys and signatures are standard Ed25519 (RFC 8032 known answer)", () => {
  const key = signingKeyFromSeed(Buffer.from(RFC_SEED, "hex"));
  expect(Buffer.from(encodePublicKey(key), "base64").toString("hex")).toBe(RFC_PUBLIC);
  expect(Buffer.from(signManifest("", key), "base64").toString("hex")).toBe(RFC_SIGNATURE);
  expect(() => signingKeyFromSeed(new Uint8Array(31))).toThrow(ManifestError);
  expect(() => decodePublicKey("not a key")).toThrow("32 bytes in base64");
});

const entries = [
  { platform: "linux-x64", fileName: "dbvault-agent-linux-x64", version: "1.2.3", sha256: "0".repeat(64), size: 110_278_832 },
  { platform: "windows-x64", fileName: "dbvault-agent-windows-x64.exe", version: "1.2.4-rc.1", sha256: "f".repeat(64), size: 1 },
];

test("a manifest is one line per build, read back as written; anything else is refused", () => {
  const text = renderManifest(entries);
  expect(text).toBe(
    `dbvault-agent-release 1\nlinux-x64 dbvault-agent-linux-x64 1.2.3 ${"0".repeat(64)} 110278832\nwindows-x64 dbvault-agent-windows-x64.exe 1.2.4-rc.1 ${"f".repeat(64)} 1\n`,
  );
  expect(parseManifest(text)).toEqual(entries);
  expect(parseManifest(renderManifest([]))).toEqual([]);
  expect(() => parseManifest(text.replace("dbvault-agent-release 1", "dbvault-agent-release 2"))).toThrow("does not start with its header");
  expect(() => parseManifest(text.slice(0, -1))).toThrow("does not end with a newline");
  expect(() => parseManifest(text.replace("1.2.3", "latest"))).toThrow("line 2 of the release manifest is malformed");
  expect(() => parseManifest(text.replace("0".repeat(64), "0".repeat(63)))).toThrow(ManifestError);
  expect(() => parseManifest(`${text}extra\n`)).toThrow("line 4");
});

test("the signature covers the exact text with the signer's key only", () => {
  const { privateKey } = generateKeyPairSync("ed25519");
  const text = renderManifest(entries);
  const signature = signManifest(text, privateKey);
  expect(verifyManifest(text, signature, encodePublicKey(privateKey))).toEqual(entries);
  const other = encodePublicKey(generateKeyPairSync("ed25519").privateKey);
  expect(() => verifyManifest(text, signature, other)).toThrow("signature does not match");
  expect(() => verifyManifest(`${text} `, signature, encodePublicKey(privateKey))).toThrow("signature does not match");
  expect(() => verifyManifest(text, "AAAA", encodePublicKey(privateKey))).toThrow("signature does not match");
});

test("versions are semantic versions of at most 32 characters", () => {
  expect(["1.0.0", "10.20.30", "1.0.1-update-test", "1.0.0+build.7"].every((v) => SEMVER.test(v))).toBe(true);
  expect(["1.0", "v1.0.0", "latest", `1.0.0-${"x".repeat(30)}`].some((v) => SEMVER.test(v))).toBe(false);
});
