// A mongodump archive the server must refuse part of: `<db>.people` with a unique index on email
// and four documents, one repeating an _id and one an email (two refusals, the first named in
// the restore's message).
import { BSON, type Document, Int32 } from "mongodb";
import { writeMongodumpArchive } from "../../src/dump/mongodump-archive/index.ts";

/** The archive's bytes as the writer yields them (a stream for restoreDatabase). */
export function writeRefusedArchive(db: string): AsyncGenerator<Uint8Array, void, undefined> {
  const doc = (value: Document) => BSON.serialize(value);
  const namespace = `${db}.people`;
  return writeMongodumpArchive(
    {
      header: { serverVersion: "7.0.0" },
      collections: [
        {
          db,
          collection: "people",
          type: "collection",
          indexes: [
            { v: new Int32(2), key: { _id: new Int32(1) }, name: "_id_" },
            { v: new Int32(2), key: { email: new Int32(1) }, name: "email_1", unique: true },
          ],
        },
      ],
    },
    [
      { kind: "document", namespace, bytes: doc({ _id: 1, email: "a@example.com" }) },
      { kind: "document", namespace, bytes: doc({ _id: 1, email: "c@example.com" }) },
      { kind: "document", namespace, bytes: doc({ _id: 2, email: "a@example.com" }) },
      { kind: "document", namespace, bytes: doc({ _id: 3, email: "b@example.com" }) },
    ],
  );
}
