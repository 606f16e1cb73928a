// Users fetching slices for an offline restore (issue 47 §5): the list of a database's stored
// slices by oplog time, a page at a time, and each slice's sealed file as the agent uploaded it
// (what `dbvault-agent restore --oplog DIR` takes); another account's database and slices are
// not found, and a malformed bound is a 400 naming it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, type TestServer, type TestUser } from "./harness";
import { uploadSlice, userShippingPitr } from "./pitr-support";

let server: TestServer;
let base: string;
let alice: TestUser;
let bob: TestUser;
let shopId: string;
const T = 1_790_000_000;
const pos = (offset: number, i: number) => `${T + offset},${i}`;
const iso = (offset: number) => new Date((T + offset) * 1000).toISOString().replace(".000Z", "Z");
const uploaded: { id: string; bytes: Buffer }[] = [];

beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
  const shipping = await userShippingPitr(server, base, "shop");
  alice = shipping.user;
  shopId = shipping.databaseId;
  bob = await server.registerUser({ name: "Bob" });
  const chain = "c".repeat(32);
  const bounds = [
    [100, 110],
    [110, 120],
    [120, 130],
    [130, 140],
  ] as const;
  for (const [sequence, [start, end]] of bounds.entries()) {
    uploaded.push(await uploadSlice(server.ctx, base, shipping.agent, "shop", { chain, sequence, start: pos(start, 1), end: pos(end, 1) }));
  }
}, 60_000);
afterAll(() => server.close());

const list = (query: Record<string, string>, token = alice.token, databaseId = shopId) =>
  server.call("GET", `/api/pitr/databases/${databaseId}/slices?${new URLSearchParams(query)}`, { token });

describe("listing a database's slices", () => {
  test("oldest first, a page at a time", async () => {
    const first = await list({ limit: "3" });
    expect(first.status).toBe(200);
    expect(first.body.slices.map((s: { id: string }) => s.id)).toEqual(uploaded.slice(0, 3).map((u) => u.id));
    expect(first.body).toMatchObject({ databaseName: "shop", total: 4, nextOffset: 3 });
    expect(first.body.slices[0]).toMatchObject({ sequence: 0, start: { ts: pos(100, 1) }, end: { ts: pos(110, 1) }, entries: 1, reason: "started" });
    const second = await list({ limit: "3", offset: "3" });
    expect(second.body.slices.map((s: { id: string }) => s.id)).toEqual([uploaded[3]!.id]);
    expect(second.body.nextOffset).toBeNull();
  });

  test("by time range: the slices holding any of [from, to], as times or positions", async () => {
    const ids = async (query: Record<string, string>) => (await list(query)).body.slices.map((s: { id: string }) => s.id);
    // 115 falls in the second slice, 125 in the third.
    expect(await ids({ from: iso(115), to: iso(125) })).toEqual([uploaded[1]!.id, uploaded[2]!.id]);
    // A slice holds (start, end]: one ending at `from`, or starting at `to`, holds nothing of the range.
    expect(await ids({ from: pos(130, 1) })).toEqual([uploaded[3]!.id]);
    expect(await ids({ to: pos(110, 1) })).toEqual([uploaded[0]!.id]);
    expect(await ids({ to: pos(110, 2) })).toEqual([uploaded[0]!.id, uploaded[1]!.id]);
  });

  test("a malformed bound or page is refused naming it", async () => {
    const bad = await list({ from: "yesterday" });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("from must be a time with its zone");
    expect((await list({ from: iso(130), to: iso(120) })).body.message).toBe("from must not be after to.");
    expect((await list({ limit: "5000" })).status).toBe(400);
  });
});

describe("downloading a slice", () => {
  test("gives the sealed file as the agent uploaded it", async () => {
    const res = await fetch(`${base}/api/pitr/databases/${shopId}/slices/${uploaded[2]!.id}/download`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toContain(`slice-${"c".repeat(32)}-0000000002.enc.dbvault`);
    expect(Buffer.from(await res.arrayBuffer()).equals(uploaded[2]!.bytes)).toBe(true);
  });

  test("another account's database and slices are not found", async () => {
    expect((await list({}, bob.token)).status).toBe(404);
    const res = await fetch(`${base}/api/pitr/databases/${shopId}/slices/${uploaded[0]!.id}/download`, { headers: { authorization: `Bearer ${bob.token}` } });
    expect(res.status).toBe(404);
  });
});

describe("downloading a range as one zip", () => {
  const archive = (query: Record<string, string>, token = alice.token) =>
    fetch(`${base}/api/pitr/databases/${shopId}/slices/archive?${new URLSearchParams(query)}`, { headers: { authorization: `Bearer ${token}` } });

  test("unzipped, it is the folder of the range's slice files as stored", async () => {
    const res = await archive({ from: iso(115), to: iso(135) });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="shop-oplog-slices.zip"');
    const bytes = Buffer.from(await res.arrayBuffer());
    const unzip = Bun.which("unzip");
    if (!unzip) return console.warn("unzip is not installed: the archive's contents are not checked");
    const dir = await mkdtemp(join(tmpdir(), "dbvault-slices-"));
    try {
      await writeFile(join(dir, "slices.zip"), bytes);
      expect(Bun.spawnSync([unzip, "-q", join(dir, "slices.zip"), "-d", join(dir, "slices")]).exitCode).toBe(0);
      const names = (await readdir(join(dir, "slices"))).sort();
      expect(names).toEqual([1, 2, 3].map((sequence) => `slice-${"c".repeat(32)}-000000000${sequence}.enc.dbvault`));
      for (const [index, name] of names.entries()) expect((await readFile(join(dir, "slices", name))).equals(uploaded[index + 1]!.bytes)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("a range no slice holds is refused; another account's database is not found", async () => {
    const none = await archive({ from: iso(500) });
    expect(none.status).toBe(400);
    expect(((await none.json()) as { message: string }).message).toBe(
      "No shipped oplog slice holds that time range: choose one the timeline shows as covered.",
    );
    expect((await archive({}, bob.token)).status).toBe(404);
  });
});
