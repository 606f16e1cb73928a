// Random damage to valid archives: the reader must always either succeed or throw a
// MongodumpArchiveError, quickly. Seeds are fixed so any failure can be replayed.

import { describe, expect, test } from "bun:test";
import { MongodumpArchiveError } from "./errors.ts";
import { readMongodumpArchive } from "./read-archive.ts";
import { chunkRandomly, collectBytes, createRandom, readFixture, toBson } from "./test-support.ts";
import type { ArchiveWriteItem } from "./types.ts";
import { writeMongodumpArchive } from "./write-archive.ts";

// About time on purpose: a damaged archive must never make the reader hang, and a deadline is
// how a hang shows. Far above a normal case (milliseconds), so a loaded machine cannot trip it.
const CASE_TIME_LIMIT_MS = 10_000;

type Outcome = "ok" | MongodumpArchiveError["code"];

async function readWithDeadline(bytes: Uint8Array, seed: number): Promise<Outcome> {
  const run = async (): Promise<Outcome> => {
    try {
      for await (const _event of readMongodumpArchive(chunkRandomly(bytes, 4096, seed))) {
        // Draining is the point.
      }
      return "ok";
    } catch (error) {
      if (error instanceof MongodumpArchiveError) return error.code;
      throw new Error(`seed ${seed}: not a MongodumpArchiveError: ${String(error)}`, { cause: error });
    }
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`seed ${seed}: reading took over ${CASE_TIME_LIMIT_MS} ms`)), CASE_TIME_LIMIT_MS);
  });
  try {
    return await Promise.race([run(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function damage(original: Uint8Array, random: () => number): Uint8Array {
  const bytes = original.slice();
  const at = () => Math.floor(random() * bytes.length);
  switch (Math.floor(random() * 6)) {
    case 0: // truncate
      return bytes.subarray(0, at());
    case 1: // flip a few bits
      for (let i = 1 + Math.floor(random() * 3); i > 0; i--) bytes[at()]! ^= 1 << Math.floor(random() * 8);
      return bytes;
    case 2: // overwrite a byte with anything
      bytes[at()] = Math.floor(random() * 256);
      return bytes;
    case 3: {
      // plant a terminator or a plausible length anywhere
      const position = at();
      const value = random() < 0.5 ? -1 : Math.floor(random() * 100_000);
      new DataView(bytes.buffer).setInt32(Math.min(position, bytes.length - 4), value, true);
      return bytes;
    }
    case 4: {
      // insert random bytes
      const position = at();
      const inserted = Uint8Array.from({ length: 1 + Math.floor(random() * 8) }, () => Math.floor(random() * 256));
      return new Uint8Array(Buffer.concat([bytes.subarray(0, position), inserted, bytes.subarray(position)]));
    }
    default: {
      // delete a range
      const start = at();
      const end = Math.min(bytes.length, start + 1 + Math.floor(random() * 64));
      return new Uint8Array(Buffer.concat([bytes.subarray(0, start), bytes.subarray(end)]));
    }
  }
}

async function buildInterleavedArchive(): Promise<Uint8Array> {
  const items: ArchiveWriteItem[] = [];
  for (let n = 0; n < 60; n++) {
    const namespace = ["shop.orders", "shop.items", ".oplog"][n % 3]!;
    items.push({ kind: "document", namespace, bytes: toBson({ _id: n, label: `doc ${n}`, values: [n, n * 2] }) });
  }
  return collectBytes(
    writeMongodumpArchive(
      {
        header: { serverVersion: "7.0.0" },
        collections: [
          { db: "shop", collection: "orders", type: "collection", indexes: [{ v: 2, key: { _id: 1 }, name: "_id_" }] },
          { db: "shop", collection: "items", type: "collection" },
          { db: "shop", collection: "empty", type: "collection" },
          { db: "", collection: "oplog" },
        ],
      },
      items,
      { maxSegmentBytes: 300 },
    ),
  );
}

describe("damaged archives", () => {
  const bases: [string, () => Promise<Uint8Array>][] = [
    ["a written interleaved archive", buildInterleavedArchive],
    ["test.bar.archive", () => readFixture("test.bar.archive")],
    ["dump-w-oplog.archive", () => readFixture("dump-w-oplog.archive")],
  ];

  for (const [name, load] of bases) {
    test(`${name}: 2000 random damages each succeed or fail with a typed error in time`, async () => {
      const original = await load();
      expect(await readWithDeadline(original, 0)).toBe("ok");
      const outcomes = new Map<Outcome, number>();
      const random = createRandom(name.length * 7919);
      for (let seed = 1; seed <= 2000; seed++) {
        const outcome = await readWithDeadline(damage(original, random), seed);
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      }
      // Damage is overwhelmingly detected, through several different checks. What passes is damage
      // to prelude text (a UUID digit, a version string): the format has no checksum over it.
      expect(outcomes.get("ok") ?? 0).toBeLessThan(400);
      expect(outcomes.get("truncated") ?? 0).toBeGreaterThan(0);
      expect(outcomes.size).toBeGreaterThan(4);
    });
  }
});
