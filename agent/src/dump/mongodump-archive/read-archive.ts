import { decodeArchiveHeader, decodeCollectionMetadata, decodeNamespaceHeader } from "./block-codec.ts";
import { ByteReader } from "./byte-reader.ts";
import { Crc64 } from "./crc64.ts";
import { MongodumpArchiveError } from "./errors.ts";
import {
  formatNamespace,
  listDataNamespaces,
  MAGIC_BYTES,
  MAX_DOCUMENT_BYTES,
  MIN_DOCUMENT_BYTES,
  TERMINATOR,
} from "./format.ts";
import type { ArchiveEvent, ArchiveSource, CollectionMetadata } from "./types.ts";

export interface ReadArchiveOptions {
  /** "throw" (default) fails on a CRC mismatch; "report" yields namespace-end with crcOk false. */
  crcMismatch?: "throw" | "report";
  /** Largest document accepted, in bytes; defaults to 16 MiB + 16 KiB (the server's internal limit). */
  maxDocumentBytes?: number;
}

interface NamespaceState {
  crc: Crc64;
  documentCount: number;
  documentBytes: number;
  started: boolean;
  ended: boolean;
}

const END_OF_BLOCK = Symbol("terminator");

/**
 * Reads a mongodump `--archive` stream incrementally and yields its header, each collection of
 * the prelude, every document (raw BSON, untouched), each namespace's end with its CRC checked,
 * then `end`. Memory stays at one document plus one input chunk. Throws MongodumpArchiveError
 * (see its `code`) on anything damaged, truncated or inconsistent; stops the source when the
 * caller stops iterating early.
 */
export async function* readMongodumpArchive(
  source: ArchiveSource,
  options: ReadArchiveOptions = {},
): AsyncGenerator<ArchiveEvent, void, undefined> {
  const maxDocumentBytes = options.maxDocumentBytes ?? MAX_DOCUMENT_BYTES;
  const reportCrcMismatch = options.crcMismatch === "report";
  const reader = new ByteReader(source);
  try {
    await readMagic(reader);
    const headerOffset = reader.position;
    const headerBytes = await readDocument(reader, maxDocumentBytes, "the archive header");
    yield { kind: "header", header: decodeArchiveHeader(headerBytes, headerOffset) };

    const collections: CollectionMetadata[] = [];
    const states = new Map<string, NamespaceState>();
    for (;;) {
      const entryOffset = reader.position;
      const entry = await readDocumentOrTerminator(reader, maxDocumentBytes, "the archive prelude");
      if (entry === END_OF_BLOCK) break;
      const metadata = decodeCollectionMetadata(entry, entryOffset);
      if (collections.some((known) => known.namespace === metadata.namespace)) {
        throw new MongodumpArchiveError("duplicate-namespace", `the prelude describes ${metadata.namespace} twice`, {
          offset: entryOffset,
          namespace: metadata.namespace,
        });
      }
      collections.push(metadata);
      for (const namespace of listDataNamespaces(metadata.db, metadata.collection, metadata.type)) {
        states.set(namespace, { crc: new Crc64(), documentCount: 0, documentBytes: 0, started: false, ended: false });
      }
      yield { kind: "collection", metadata };
    }

    while (!(await reader.atEnd())) {
      const blockOffset = reader.position;
      const headerDocument = await readDocumentOrTerminator(reader, maxDocumentBytes, "a namespace header");
      if (headerDocument === END_OF_BLOCK) {
        throw new MongodumpArchiveError("unexpected-terminator", "found a terminator where a namespace header belongs", {
          offset: blockOffset,
        });
      }
      const header = decodeNamespaceHeader(headerDocument, blockOffset);
      const namespace = formatNamespace(header.db, header.collection);
      const state = states.get(namespace);
      if (state === undefined) {
        throw new MongodumpArchiveError("unknown-namespace", `found data for ${namespace}, which the prelude does not describe`, {
          offset: blockOffset,
          namespace,
        });
      }
      if (header.eof) {
        const ending = endNamespace(state, header.crc, namespace, blockOffset, reportCrcMismatch);
        const afterOffset = reader.position;
        const after = await readDocumentOrTerminator(reader, maxDocumentBytes, `the end marker of ${namespace}`);
        if (after !== END_OF_BLOCK) {
          throw new MongodumpArchiveError("data-after-eof-header", `documents follow the end marker of ${namespace}`, {
            offset: afterOffset,
            namespace,
          });
        }
        yield ending;
        continue;
      }
      if (state.ended) {
        throw new MongodumpArchiveError("segment-after-end", `found a segment of ${namespace} after it ended`, {
          offset: blockOffset,
          namespace,
        });
      }
      state.started = true;
      const context = `a document of ${namespace}`;
      // The hot loop: take documents synchronously while they are buffered, await only to refill.
      for (;;) {
        let next = takeDocumentOrTerminator(reader, maxDocumentBytes, context);
        while (typeof next === "number") {
          if (!(await reader.fill(next))) throw truncatedError(reader, context);
          next = takeDocumentOrTerminator(reader, maxDocumentBytes, context);
        }
        if (next === END_OF_BLOCK) break;
        state.crc.update(next);
        state.documentCount++;
        state.documentBytes += next.length;
        yield { kind: "document", namespace, bytes: next };
      }
    }

    checkEveryNamespaceEnded(collections, states, reader.position);
    yield { kind: "end", archiveBytes: reader.position };
  } finally {
    await reader.close();
  }
}

function endNamespace(
  state: NamespaceState,
  storedCrc: bigint,
  namespace: string,
  offset: number,
  reportCrcMismatch: boolean,
): ArchiveEvent {
  if (state.ended) {
    throw new MongodumpArchiveError("namespace-ended-twice", `${namespace} has a second end marker`, { offset, namespace });
  }
  state.ended = true;
  const actual = state.crc.digestInt64();
  const crcOk = actual === storedCrc;
  if (!crcOk && !reportCrcMismatch) {
    throw new MongodumpArchiveError(
      "crc-mismatch",
      `the documents of ${namespace} do not match their checksum (stored CRC ${storedCrc}, computed ${actual}); the archive is damaged`,
      { offset, namespace },
    );
  }
  return {
    kind: "namespace-end",
    namespace,
    documentCount: state.documentCount,
    documentBytes: state.documentBytes,
    crc: storedCrc,
    crcOk,
  };
}

function checkEveryNamespaceEnded(
  collections: CollectionMetadata[],
  states: Map<string, NamespaceState>,
  offset: number,
): void {
  for (const [namespace, state] of states) {
    if (state.started && !state.ended) {
      throw new MongodumpArchiveError("unfinished-namespace", `the archive ends before the end marker of ${namespace}; it is truncated`, {
        offset,
        namespace,
      });
    }
  }
  // mongodump writes at least an empty segment and an end marker for every prelude entry
  // (views included), so a missing one means whole namespaces were cut off.
  for (const metadata of collections) {
    const ended = listDataNamespaces(metadata.db, metadata.collection, metadata.type).some(
      (namespace) => states.get(namespace)?.ended,
    );
    if (!ended) {
      throw new MongodumpArchiveError(
        "unfinished-namespace",
        `the archive ends without the data of ${metadata.namespace}, which its prelude announces; it is truncated`,
        { offset, namespace: metadata.namespace },
      );
    }
  }
}

async function readMagic(reader: ByteReader): Promise<void> {
  if (!(await reader.fill(MAGIC_BYTES.length))) {
    throw new MongodumpArchiveError("bad-magic", "the input is too short to be a mongodump archive", { offset: 0 });
  }
  const magic = reader.take(MAGIC_BYTES.length);
  if (magic.every((byte, index) => byte === MAGIC_BYTES[index])) return;
  let hint = "";
  if (magic[0] === 0x1f && magic[1] === 0x8b) hint = "; it looks gzip-compressed, decompress it first";
  else if (magic[0] === 0x28 && magic[1] === 0xb5 && magic[2] === 0x2f && magic[3] === 0xfd) {
    hint = "; it looks zstd-compressed, decompress it first";
  }
  throw new MongodumpArchiveError("bad-magic", `the input does not start with the mongodump archive magic number${hint}`, {
    offset: 0,
  });
}

/**
 * Takes the next document or terminator if it is fully buffered; otherwise returns how many
 * bytes must be buffered first. Throws on a length out of range or a missing final 0x00.
 */
function takeDocumentOrTerminator(
  reader: ByteReader,
  maxDocumentBytes: number,
  context: string,
): Uint8Array | typeof END_OF_BLOCK | number {
  if (!reader.has(4)) return 4;
  const length = reader.peekInt32();
  if (length === TERMINATOR) {
    reader.take(4);
    return END_OF_BLOCK;
  }
  if (length < MIN_DOCUMENT_BYTES || length > maxDocumentBytes) {
    throw new MongodumpArchiveError(
      "invalid-length",
      `${context} has length ${length}, which is neither a BSON length (${MIN_DOCUMENT_BYTES} to ${maxDocumentBytes} bytes) nor a terminator`,
      { offset: reader.position },
    );
  }
  if (!reader.has(length)) return length;
  const offset = reader.position;
  const document = reader.take(length);
  if (document[length - 1] !== 0) {
    throw new MongodumpArchiveError("bad-document-terminator", `${context} (${length} bytes) does not end with a 0x00 byte`, {
      offset,
    });
  }
  return document;
}

async function readDocumentOrTerminator(
  reader: ByteReader,
  maxDocumentBytes: number,
  context: string,
): Promise<Uint8Array | typeof END_OF_BLOCK> {
  let next = takeDocumentOrTerminator(reader, maxDocumentBytes, context);
  while (typeof next === "number") {
    if (!(await reader.fill(next))) throw truncatedError(reader, context);
    next = takeDocumentOrTerminator(reader, maxDocumentBytes, context);
  }
  return next;
}

async function readDocument(reader: ByteReader, maxDocumentBytes: number, context: string): Promise<Uint8Array> {
  const offset = reader.position;
  const document = await readDocumentOrTerminator(reader, maxDocumentBytes, context);
  if (document === END_OF_BLOCK) {
    throw new MongodumpArchiveError("unexpected-terminator", `found a terminator where ${context} belongs`, { offset });
  }
  return document;
}

function truncatedError(reader: ByteReader, context: string): MongodumpArchiveError {
  return new MongodumpArchiveError("truncated", `the input ends inside ${context}; the archive is truncated`, {
    offset: reader.position,
  });
}
