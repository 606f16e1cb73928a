// How much one insert command may carry. A server closes the connection on a message over its
// maxMessageSizeBytes (48,000,000 bytes on mongod and FerretDB) without an answer, so the agent
// never sends one: every insert is cut into commands within the limits the server states in
// `hello`, as the official drivers' bulk writes are.
import type { MongoClient } from "mongodb";

export interface WriteLimits {
  /** The largest message the server reads (maxMessageSizeBytes). */
  maxMessageBytes: number;
  /** The largest document it stores (maxBsonObjectSize). */
  maxDocumentBytes: number;
  /** The most documents one insert may carry (maxWriteBatchSize). */
  maxBatchDocuments: number;
}

/** mongod's limits since 3.6, for servers whose `hello` leaves one out. */
export const DEFAULT_WRITE_LIMITS: WriteLimits = {
  maxMessageBytes: 48_000_000,
  maxDocumentBytes: 16 * 1024 * 1024,
  maxBatchDocuments: 100_000,
};

// Room in a message for what is not a document: the message and section headers and the command
// itself (collection name, flags, session, cluster time). The drivers reserve 1,000 bytes; a
// collection name alone may take 255.
const MESSAGE_OVERHEAD_BYTES = 16 * 1024;

/** Asks the server its limits (hello, or isMaster before 4.4.2), each defaulted when missing; throws the driver's error. */
export async function readWriteLimits(client: MongoClient): Promise<WriteLimits> {
  const admin = client.db("admin");
  const hello = await admin.command({ hello: 1 }).catch((error: { code?: number }) => {
    // 59 CommandNotFound: servers before hello (4.4.2, 4.2.10, 4.0.21) answer isMaster.
    if (error.code === 59) return admin.command({ isMaster: 1 });
    throw error;
  });
  return {
    maxMessageBytes: readPositive(hello.maxMessageSizeBytes) ?? DEFAULT_WRITE_LIMITS.maxMessageBytes,
    maxDocumentBytes: readPositive(hello.maxBsonObjectSize) ?? DEFAULT_WRITE_LIMITS.maxDocumentBytes,
    maxBatchDocuments: readPositive(hello.maxWriteBatchSize) ?? DEFAULT_WRITE_LIMITS.maxBatchDocuments,
  };
}

function readPositive(value: unknown): number | undefined {
  const number = typeof value === "number" ? value : typeof value === "bigint" ? Number(value) : Number.NaN;
  return Number.isFinite(number) && number > 0 ? number : undefined;
}

/**
 * Cuts documents, in their order, into runs that one insert command may carry under `limits`.
 * A document larger than the server stores goes alone, so its refusal is its own; never throws.
 */
export function splitIntoCommands(documents: Uint8Array[], limits: WriteLimits): Uint8Array[][] {
  const maxBytes = Math.max(limits.maxMessageBytes - MESSAGE_OVERHEAD_BYTES, 1);
  const commands: Uint8Array[][] = [];
  let current: Uint8Array[] = [];
  let bytes = 0;
  for (const document of documents) {
    const full = current.length >= limits.maxBatchDocuments || bytes + document.length > maxBytes;
    const alone = document.length > limits.maxDocumentBytes;
    if (current.length > 0 && (full || alone)) {
      commands.push(current);
      current = [];
      bytes = 0;
    }
    current.push(document);
    bytes += document.length;
    if (alone) {
      commands.push(current);
      current = [];
      bytes = 0;
    }
  }
  if (current.length > 0) commands.push(current);
  return commands;
}
