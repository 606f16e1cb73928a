// MongoDB wire-protocol framing: cutting the TCP byte stream into messages, reading OP_MSG and the
// legacy OP_QUERY (which the driver still uses for its very first `isMaster`), and writing OP_MSG
// and OP_REPLY answers. Compression (OP_COMPRESSED) is never offered in `hello`, so never sent.
import { MAX_MESSAGE_SIZE_BYTES } from "./limits";
import { assertWellFormed } from "./raw-bson";

export const OP_REPLY = 1;
export const OP_QUERY = 2004;
export const OP_MSG = 2013;

const HEADER_SIZE = 16;
const FLAG_CHECKSUM_PRESENT = 1 << 0;
const FLAG_MORE_TO_COME = 1 << 1;
const FLAG_EXHAUST_ALLOWED = 1 << 16;

/** A thrown framing fault: the connection cannot continue and is closed. */
export class WireProtocolError extends Error {}

/** A command as it arrived: the raw body document plus any OP_MSG document sequences. */
export type WireRequest = {
  requestId: number;
  opCode: typeof OP_MSG | typeof OP_QUERY;
  /** OP_MSG only: the client expects no reply (unacknowledged writes). */
  moreToCome: boolean;
  /** OP_MSG only: the client accepts a stream of replies (a driver's awaitable hello). */
  exhaustAllowed?: boolean;
  body: Buffer;
  sequences: Map<string, Buffer[]>;
  /** OP_QUERY only: "<db>.$cmd" or another namespace. */
  fullCollectionName?: string;
};

/** Accumulates socket chunks and yields whole messages without re-copying on every chunk. */
export class MessageReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly maxMessageBytes = MAX_MESSAGE_SIZE_BYTES) {}

  /** Adds a chunk and returns every message it completes; throws WireProtocolError on a bad length. */
  pushChunk(chunk: Buffer): Buffer[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const messages: Buffer[] = [];
    while (this.buffered >= 4) {
      const head = this.chunks[0]!.length >= 4 ? this.chunks[0]! : this.flatten();
      const length = head.readInt32LE(0);
      if (length < HEADER_SIZE || length > this.maxMessageBytes) {
        throw new WireProtocolError(`message length ${length} is outside 16..${this.maxMessageBytes}`);
      }
      if (this.buffered < length) break;
      const all = this.flatten();
      messages.push(all.subarray(0, length));
      this.chunks = all.length > length ? [all.subarray(length)] : [];
      this.buffered -= length;
    }
    return messages;
  }

  private flatten(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks, this.buffered)];
    return this.chunks[0]!;
  }
}

function readCString(message: Buffer, offset: number): { value: string; next: number } {
  const end = message.indexOf(0, offset);
  if (end < 0) throw new WireProtocolError("unterminated string in message");
  return { value: message.toString("utf8", offset, end), next: end + 1 };
}

function readDocumentAt(message: Buffer, offset: number, limit: number): Buffer {
  if (offset + 5 > limit) throw new WireProtocolError("truncated document in message");
  const size = message.readInt32LE(offset);
  if (size < 5 || offset + size > limit) throw new WireProtocolError("document overruns its message");
  const document = message.subarray(offset, offset + size);
  assertWellFormed(document); // bson rejects malformed bytes here, before anything is stored
  return document;
}

function parseOpMsg(message: Buffer, requestId: number): WireRequest {
  const flags = message.readUInt32LE(HEADER_SIZE);
  // The CRC-32C trailer, when present, is not checked: loopback TCP already guarantees integrity.
  const end = flags & FLAG_CHECKSUM_PRESENT ? message.length - 4 : message.length;
  let offset = HEADER_SIZE + 4;
  let body: Buffer | undefined;
  const sequences = new Map<string, Buffer[]>();
  while (offset < end) {
    const kind = message[offset++];
    if (kind === 0) {
      if (body) throw new WireProtocolError("OP_MSG has more than one body section");
      body = readDocumentAt(message, offset, end);
      offset += body.length;
    } else if (kind === 1) {
      const sectionEnd = offset + message.readInt32LE(offset);
      if (sectionEnd > end) throw new WireProtocolError("document sequence overruns its message");
      const identifier = readCString(message, offset + 4);
      const documents: Buffer[] = [];
      for (let at = identifier.next; at < sectionEnd; ) {
        const document = readDocumentAt(message, at, sectionEnd);
        documents.push(Buffer.from(document)); // copied so the 48 MB message can be freed
        at += document.length;
      }
      sequences.set(identifier.value, documents);
      offset = sectionEnd;
    } else {
      throw new WireProtocolError(`unknown OP_MSG section kind ${kind}`);
    }
  }
  if (!body) throw new WireProtocolError("OP_MSG has no body section");
  const exhaustAllowed = (flags & FLAG_EXHAUST_ALLOWED) !== 0;
  return { requestId, opCode: OP_MSG, moreToCome: (flags & FLAG_MORE_TO_COME) !== 0, exhaustAllowed, body: Buffer.from(body), sequences };
}

function parseOpQuery(message: Buffer, requestId: number): WireRequest {
  const name = readCString(message, HEADER_SIZE + 4);
  const queryOffset = name.next + 8; // numberToSkip and numberToReturn do not apply to commands
  const body = Buffer.from(readDocumentAt(message, queryOffset, message.length));
  return { requestId, opCode: OP_QUERY, moreToCome: false, body, sequences: new Map(), fullCollectionName: name.value };
}

/** Parses one whole message; throws WireProtocolError for opcodes and shapes the server rejects. */
export function parseWireMessage(message: Buffer): WireRequest {
  const requestId = message.readInt32LE(4);
  const opCode = message.readInt32LE(12);
  if (opCode === OP_MSG) return parseOpMsg(message, requestId);
  if (opCode === OP_QUERY) return parseOpQuery(message, requestId);
  throw new WireProtocolError(`unsupported opcode ${opCode}`);
}

function writeHeader(length: number, requestId: number, responseTo: number, opCode: number): Buffer {
  const header = Buffer.alloc(HEADER_SIZE);
  header.writeInt32LE(length, 0);
  header.writeInt32LE(requestId, 4);
  header.writeInt32LE(responseTo, 8);
  header.writeInt32LE(opCode, 12);
  return header;
}

/** Frames a reply body as OP_MSG (one body section); `moreToCome` announces another reply to follow. */
export function encodeOpMsgReply(requestId: number, responseTo: number, body: Buffer, moreToCome = false): Buffer {
  const length = HEADER_SIZE + 4 + 1 + body.length;
  const flagsAndKind = Buffer.alloc(5); // flags, then section kind 0
  if (moreToCome) flagsAndKind.writeUInt32LE(FLAG_MORE_TO_COME, 0);
  return Buffer.concat([writeHeader(length, requestId, responseTo, OP_MSG), flagsAndKind, body], length);
}

/** Frames a reply body as the legacy OP_REPLY holding one document. */
export function encodeOpReply(requestId: number, responseTo: number, body: Buffer): Buffer {
  const fields = Buffer.alloc(20); // responseFlags, cursorID (int64), startingFrom: all 0
  fields.writeInt32LE(1, 16); // numberReturned
  const length = HEADER_SIZE + fields.length + body.length;
  return Buffer.concat([writeHeader(length, requestId, responseTo, OP_REPLY), fields, body], length);
}
