import { describe, expect, test } from "bun:test";
import { BSON } from "bson";
import { encodeOpMsgReply, MessageReader, OP_MSG, OP_QUERY, parseWireMessage, WireProtocolError } from "./wire-protocol";

function frameOpMsg(requestId: number, flags: number, body: object, sequence?: { id: string; docs: object[] }): Buffer {
  const parts: Buffer[] = [Buffer.from([0]), Buffer.from(BSON.serialize(body))];
  if (sequence) {
    const docs = sequence.docs.map((doc) => Buffer.from(BSON.serialize(doc)));
    const identifier = Buffer.from(`${sequence.id}\0`);
    const size = Buffer.alloc(4);
    size.writeInt32LE(4 + identifier.length + docs.reduce((sum, doc) => sum + doc.length, 0));
    parts.push(Buffer.from([1]), size, identifier, ...docs);
  }
  const payload = Buffer.concat(parts);
  const header = Buffer.alloc(20);
  header.writeInt32LE(20 + payload.length, 0);
  header.writeInt32LE(requestId, 4);
  header.writeInt32LE(OP_MSG, 12);
  header.writeUInt32LE(flags, 16);
  return Buffer.concat([header, payload]);
}

describe("MessageReader", () => {
  test("reassembles messages split at every byte and several messages in one chunk", () => {
    const first = frameOpMsg(1, 0, { ping: 1, $db: "admin" });
    const second = frameOpMsg(2, 0, { hello: 1, $db: "admin" });
    const reader = new MessageReader();
    const seen: Buffer[] = [];
    for (const byte of first) seen.push(...reader.pushChunk(Buffer.from([byte])));
    expect(seen).toHaveLength(1);
    expect(seen[0]!.equals(first)).toBe(true);
    expect(reader.pushChunk(Buffer.concat([second, second]))).toHaveLength(2);
  });

  test("rejects a length beyond maxMessageSizeBytes instead of buffering it", () => {
    const header = Buffer.alloc(16);
    header.writeInt32LE(48_000_001, 0);
    expect(() => new MessageReader().pushChunk(header)).toThrow(WireProtocolError);
  });
});

describe("parseWireMessage", () => {
  test("reads the body, document sequences and the moreToCome flag of OP_MSG", () => {
    const message = frameOpMsg(7, 2, { insert: "c", $db: "d" }, { id: "documents", docs: [{ _id: 1 }, { _id: 2, x: "y" }] });
    const request = parseWireMessage(message);
    expect(request.requestId).toBe(7);
    expect(request.moreToCome).toBe(true);
    expect(BSON.deserialize(request.body)).toEqual({ insert: "c", $db: "d" });
    const documents = request.sequences.get("documents")!;
    expect(documents.map((doc) => BSON.deserialize(doc))).toEqual([{ _id: 1 }, { _id: 2, x: "y" }]);
  });

  test("reads a legacy OP_QUERY command and its namespace", () => {
    const query = Buffer.from(BSON.serialize({ isMaster: 1 }));
    const namespace = Buffer.from("admin.$cmd\0");
    const header = Buffer.alloc(20);
    header.writeInt32LE(20 + namespace.length + 8 + query.length, 0);
    header.writeInt32LE(3, 4);
    header.writeInt32LE(OP_QUERY, 12);
    const request = parseWireMessage(Buffer.concat([header, namespace, Buffer.alloc(8), query]));
    expect(request.opCode).toBe(OP_QUERY);
    expect(request.fullCollectionName).toBe("admin.$cmd");
    expect(BSON.deserialize(request.body)).toEqual({ isMaster: 1 });
  });

  test("rejects a document whose length overruns the message, and unknown opcodes", () => {
    const message = frameOpMsg(1, 0, { ping: 1 });
    message.writeInt32LE(9999, 21); // the body's own length
    expect(() => parseWireMessage(message)).toThrow(WireProtocolError);
    const legacyInsert = Buffer.alloc(16);
    legacyInsert.writeInt32LE(16, 0);
    legacyInsert.writeInt32LE(2002, 12);
    expect(() => parseWireMessage(legacyInsert)).toThrow("unsupported opcode 2002");
  });

  test("frames a reply that answers the request id", () => {
    const body = Buffer.from(BSON.serialize({ ok: 1 }));
    const reply = encodeOpMsgReply(10, 7, body);
    expect(reply.readInt32LE(0)).toBe(reply.length);
    expect(reply.readInt32LE(8)).toBe(7);
    expect(reply.readInt32LE(12)).toBe(OP_MSG);
    expect(reply.subarray(21).equals(body)).toBe(true);
  });
});
