// Webhook targets: which URLs and resolved addresses are refused, and that a delivery goes to the
// checked address while TLS still verifies the certificate for the URL's name (a real HTTPS
// server on loopback with a certificate for hooks.test, made here with openssl).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseWebhookUrl, postToTarget, resolveWebhookTarget, WebhookTargetError } from "./target";

const strict = { allowPrivate: false };
const open = { allowPrivate: true };

describe("parseWebhookUrl", () => {
  test("takes https URLs and refuses other schemes, credentials and literal private addresses", () => {
    expect(parseWebhookUrl("https://hooks.example.com/x?token=1", strict).href).toBe("https://hooks.example.com/x?token=1");
    expect(() => parseWebhookUrl("http://hooks.example.com/x", strict)).toThrow("must start with https://");
    expect(() => parseWebhookUrl("ftp://hooks.example.com/x", open)).toThrow("must start with https://");
    expect(() => parseWebhookUrl("https://a:b@hooks.example.com/", strict)).toThrow("user name or password");
    // The URL parser normalises other spellings of an address (hex, short forms) first.
    expect(() => parseWebhookUrl("https://0x7f.1/", strict)).toThrow("(loopback)");
    expect(() => parseWebhookUrl("https://100.100.100.200/", strict)).toThrow("(carrierGradeNat)");
    expect(() => parseWebhookUrl("https://[2002:a00:1::]/", strict)).toThrow("(6to4 of 10.0.0.1: private)");
    expect(() => parseWebhookUrl("https://0.0.0.0/", strict)).toThrow("(unspecified)");
    expect(parseWebhookUrl("http://127.0.0.1:8080/x", open).host).toBe("127.0.0.1:8080");
  });
});

describe("resolveWebhookTarget", () => {
  const lookupOf = (answers: Record<string, string[]>) => async (name: string) => {
    if (!answers[name]) throw new Error("ENOTFOUND");
    return answers[name]!;
  };

  test("answers the first address when every address is public", async () => {
    const target = await resolveWebhookTarget(
      new URL("https://hooks.example.com/"),
      strict,
      lookupOf({ "hooks.example.com": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"] }),
    );
    expect(target.address).toBe("93.184.215.14");
  });

  test("refuses a name when any of its addresses is private, and an unknown name", async () => {
    const lookup = lookupOf({ "mixed.example.com": ["93.184.215.14", "10.0.0.7"], "meta.example.com": ["169.254.169.254"] });
    await expect(resolveWebhookTarget(new URL("https://mixed.example.com/"), strict, lookup)).rejects.toThrow(
      "mixed.example.com (10.0.0.7) is not a public internet address (private)",
    );
    await expect(resolveWebhookTarget(new URL("https://meta.example.com/"), strict, lookup)).rejects.toThrow("(linkLocal)");
    await expect(resolveWebhookTarget(new URL("https://nowhere.example.com/"), strict, lookup)).rejects.toBeInstanceOf(WebhookTargetError);
    expect((await resolveWebhookTarget(new URL("https://mixed.example.com/"), open, lookup)).address).toBe("93.184.215.14");
  });
});

describe("postToTarget over TLS", () => {
  let dir: string;
  let cert: string;
  let server: ReturnType<typeof Bun.serve>;
  const seen: { host: string | null; path: string }[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "dbvault-webhook-tls-"));
    const made = Bun.spawnSync(
      [
        "openssl",
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=hooks.test",
        "-addext",
        "subjectAltName=DNS:hooks.test",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
      ],
      { stderr: "pipe" },
    );
    if (made.exitCode !== 0) throw new Error(`openssl failed: ${made.stderr.toString()}`);
    cert = readFileSync(join(dir, "cert.pem"), "utf8");
    server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      tls: { cert, key: readFileSync(join(dir, "key.pem"), "utf8") },
      fetch(request) {
        const path = new URL(request.url).pathname;
        seen.push({ host: request.headers.get("host"), path });
        return path === "/moved" ? Response.redirect("https://hooks.test/elsewhere", 302) : new Response("ok", { status: 202 });
      },
    });
  });
  afterAll(() => {
    server.stop(true);
    rmSync(dir, { recursive: true, force: true });
  });

  test("connects to the checked address, with the URL's name as Host and for the certificate check", async () => {
    // hooks.test resolves nowhere: only the pinned address can have been reached.
    const url = new URL(`https://hooks.test:${server.port}/dbvault`);
    const status = await postToTarget({ url, address: "127.0.0.1" }, "{}", {}, { timeoutMs: 10_000, ca: cert });
    expect(status).toBe(202);
    expect(seen.at(-1)).toEqual({ host: `hooks.test:${server.port}`, path: "/dbvault" });
  });

  test("a certificate for another name is refused", async () => {
    const url = new URL(`https://evil.test:${server.port}/dbvault`);
    const before = seen.length;
    await expect(postToTarget({ url, address: "127.0.0.1" }, "{}", {}, { timeoutMs: 10_000, ca: cert })).rejects.toThrow();
    expect(seen.length).toBe(before);
  });

  test("a redirect is answered as it is, never followed", async () => {
    const url = new URL(`https://hooks.test:${server.port}/moved`);
    const before = seen.length;
    expect(await postToTarget({ url, address: "127.0.0.1" }, "{}", {}, { timeoutMs: 10_000, ca: cert })).toBe(302);
    expect(seen.length).toBe(before + 1);
  });
});
