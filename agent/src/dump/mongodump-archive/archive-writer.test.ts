import { describe, expect, test } from "bun:test";
import { BSON } from "bson";
import { Readable } from "node:stream";
import { createArchiveWriter } from "./archive-writer.ts";
import { MongodumpArchiveError } from "./errors.ts";
import { collectBytes, collectEvents, countDocuments, createRandom, toBson } from "./test-support.ts";
import type { ArchivePrelude } from "./types.ts";
import { settle } from "../../../../testkit/manual-clock";

const prelude: ArchivePrelude = {
  header: { serverVersion: "7.0.0", concurrentCollections: 3 },
  collections: [
    { db: "a", collection: "one" },
    { db: "a", collection: "two" },
    { db: "b", collection: "three" },
  ],
};

/** Whether a promise is still pending after the event loop had a chance to settle it. */
async function isPending(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await settle();
  await settle(); // two turns of the loop: a reaction that schedules another still gets to run
  return !settled;
}

describe("createArchiveWriter", () => {
  test("interleaves concurrent producers and keeps each namespace's order", async () => {
    const writer = createArchiveWriter(prelude, { highWaterMarkBytes: 2048, chunkBytes: 1024 });
    const output = collectBytes(writer.output);
    const random = createRandom(9);
    const produce = async (namespace: string) => {
      for (let n = 0; n < 300; n++) {
        await writer.writeDocument(namespace, toBson({ namespace, n }));
        if (random() < 0.1) await settle(); // let the other producers interleave
      }
      await writer.endNamespace(namespace);
    };
    await Promise.all([produce("a.one"), produce("a.two"), produce("b.three")]);
    await writer.close();
    const events = await collectEvents([await output]);
    expect(countDocuments(events)).toEqual({ "a.one": 300, "a.two": 300, "b.three": 300 });
    const namespaces = events.flatMap((e) => (e.kind === "document" ? [e.namespace] : []));
    expect(new Set(namespaces.slice(0, 60)).size).toBeGreaterThan(1); // really interleaved
    for (const namespace of ["a.one", "a.two", "b.three"]) {
      const sequence = events.flatMap((e) => (e.kind === "document" && e.namespace === namespace ? [BSON.deserialize(e.bytes).n as number] : []));
      expect(sequence).toEqual(Array.from({ length: 300 }, (_, n) => n));
    }
  });

  test("makes producers wait while the consumer is behind, and lets them go as it reads", async () => {
    const writer = createArchiveWriter(prelude, { highWaterMarkBytes: 1000, chunkBytes: 512 });
    const doc = toBson({ padding: "x".repeat(80) }); // ~100 bytes
    const accepted: Promise<void>[] = [];
    for (let n = 0; n < 15; n++) accepted.push(writer.writeDocument("a.one", doc));
    expect(await isPending(accepted[5]!)).toBe(false);
    expect(await isPending(accepted[14]!)).toBe(true);
    const reading = collectBytes(writer.output);
    await Promise.all(accepted);
    await writer.close();
    expect(countDocuments(await collectEvents([await reading]))["a.one"]).toBe(15);
  });

  test("ends namespaces nobody ended when closed, and works as a Node Readable", async () => {
    const writer = createArchiveWriter(prelude);
    const readable = Readable.from(writer.output);
    await writer.writeDocument("b.three", toBson({ _id: 1 }));
    await writer.close();
    const events = await collectEvents(readable);
    expect(countDocuments(events)).toEqual({ "a.one": 0, "a.two": 0, "b.three": 1 });
  });

  test("an encoding error fails the output and every later call", async () => {
    const writer = createArchiveWriter(prelude);
    const reading = collectBytes(writer.output);
    await writer.writeDocument("a.nowhere", toBson({ _id: 1 }));
    const error = await reading.catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "unknown-namespace", namespace: "a.nowhere" });
    await expect(writer.writeDocument("a.one", toBson({ _id: 2 }))).rejects.toBe(error);
    await expect(writer.close()).rejects.toBe(error);
  });

  test("abort fails the output with the reason and rejects waiting producers", async () => {
    const writer = createArchiveWriter(prelude, { highWaterMarkBytes: 10 });
    const waiting = writer.writeDocument("a.one", toBson({ padding: "x".repeat(50) }));
    expect(await isPending(waiting)).toBe(true);
    const reason = new Error("cursor failed");
    writer.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    await expect(collectBytes(writer.output)).rejects.toBe(reason);
  });

  test("a consumer that stops early makes later writes fail as writer-closed", async () => {
    const writer = createArchiveWriter(prelude, { chunkBytes: 64 });
    await writer.writeDocument("a.one", toBson({ _id: 1 }));
    for await (const _chunk of writer.output) break;
    const error = await writer.writeDocument("a.one", toBson({ _id: 2 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MongodumpArchiveError);
    expect(error).toMatchObject({ code: "writer-closed" });
  });

  test("writing after close is refused", async () => {
    const writer = createArchiveWriter(prelude);
    await writer.close();
    await expect(writer.writeDocument("a.one", toBson({ _id: 1 }))).rejects.toMatchObject({ code: "writer-closed" });
    expect(countDocuments(await collectEvents([await collectBytes(writer.output)]))).toEqual({
      "a.one": 0,
      "a.two": 0,
      "b.three": 0,
    });
  });
});
