// A slice's file is the preamble then the entries' bytes as read, whatever the builder holds them
// in; and the builder keeps its own copy of each entry, not the buffer it was handed (a view of a
// whole driver reply, which would otherwise stay in memory as long as the slice).
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { BSON } from "bson";
import { decryptBuffer } from "../../archive/index.ts";
import { PREAMBLE_MESSAGE, SliceBuilder } from "./slice-builder.ts";

const masterKey = new Uint8Array(randomBytes(32));
const place = { database: "shop", chain: "c".repeat(32), sequence: 3, start: { t: 100, i: 1 } };

const entry = (n: number, padding: number) =>
  BSON.serialize({ op: "i", ns: "shop.orders", ts: new BSON.Timestamp({ t: 100 + n, i: 1 }), o: { _id: n, pad: "x".repeat(padding) } });

function readDocuments(plaintext: Uint8Array): Uint8Array[] {
  const documents: Uint8Array[] = [];
  for (let at = 0; at < plaintext.byteLength; ) {
    const length = new DataView(plaintext.buffer, plaintext.byteOffset + at).getInt32(0, true);
    documents.push(plaintext.subarray(at, at + length));
    at += length;
  }
  return documents;
}

describe("SliceBuilder", () => {
  test("seals the preamble then every entry byte for byte, across chunks and with an entry larger than a chunk", async () => {
    const builder = new SliceBuilder(place);
    const added = [entry(1, 100), ...Array.from({ length: 3000 }, (_, n) => entry(n + 2, 900)), entry(5000, 3 * 1024 * 1024), entry(5001, 10)];
    for (const [n, raw] of added.entries()) builder.add(raw, { t: 101 + n, i: 1 }, 1_000);
    const sealed = await builder.seal({ t: 9000, i: 2 }, { masterKey }, new Date(0));

    const { header, plaintext } = await decryptBuffer(sealed.bytes, { masterKey });
    expect(header.payloadKind).toBe("oplog-slice");
    const [preamble, ...entries] = readDocuments(plaintext);
    expect(BSON.deserialize(preamble!).o).toMatchObject({ msg: PREAMBLE_MESSAGE, database: "shop", sequence: 3, entries: added.length });
    expect(entries.length).toBe(added.length);
    for (const [n, raw] of added.entries()) expect(Buffer.from(entries[n]!).equals(Buffer.from(raw))).toBe(true);
    expect(sealed).toMatchObject({ entries: added.length, first: { t: 101, i: 1 }, last: { t: 100 + added.length, i: 1 }, size: sealed.bytes.byteLength });
  });

  test("keeps a copy of each entry: the reply buffer it came from may be reused or freed", async () => {
    const reply = new Uint8Array(64 * 1024);
    const raw = entry(1, 200);
    reply.set(raw, 4096);
    const builder = new SliceBuilder(place);
    builder.add(reply.subarray(4096, 4096 + raw.byteLength), { t: 101, i: 1 }, 1_000);
    reply.fill(0); // the driver's buffer, gone or reused

    const sealed = await builder.seal({ t: 101, i: 1 }, { masterKey }, new Date(0));
    const [, kept] = readDocuments((await decryptBuffer(sealed.bytes, { masterKey })).plaintext);
    expect(Buffer.from(kept!).equals(Buffer.from(raw))).toBe(true);
  });
});
