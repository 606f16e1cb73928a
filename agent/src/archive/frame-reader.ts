import { CorruptChunkError, TrailingDataError, TruncatedArchiveError } from "./errors.ts";
import { FLAG_LAST, FLAG_MORE, FRAME_HEADER_LENGTH, TAG_LENGTH } from "./format.ts";

/** One chunk frame cut from the input. `header` and `body` are only valid during the callback. */
export interface Frame {
  /** Position of the frame in the file (0-based), which is the index it must carry. */
  position: number;
  header: Buffer;
  flag: number;
  /** Plaintext length declared by the frame header. */
  length: number;
  /** Ciphertext followed by the 16-byte tag. */
  body: Buffer;
}

/** Called for a frame the input ended inside of, with the bytes that did arrive. */
export type PartialFrameHandler = (header: Buffer, partialBody: Buffer, position: number) => void;

/**
 * Cuts a byte stream (after the file header) into chunk frames, with bounded memory: at most one
 * frame is buffered. It checks the framing only; authenticity is the caller's job in `onFrame`,
 * which must throw to reject a frame. A frame flagged last ends the stream once `onFrame` accepts it.
 */
export class FrameReader {
  readonly #chunkSize: number;
  readonly #onFrame: (frame: Frame) => void;
  readonly #buffer: Buffer;
  #have = 0;
  #frameLength = 0;
  #position = 0;
  #done = false;

  constructor(chunkSize: number, onFrame: (frame: Frame) => void) {
    this.#chunkSize = chunkSize;
    this.#onFrame = onFrame;
    this.#buffer = Buffer.allocUnsafe(FRAME_HEADER_LENGTH + chunkSize + TAG_LENGTH);
  }

  /** Number of frames accepted so far. */
  get framesRead(): number {
    return this.#position;
  }

  /** Whether the frame flagged last has been accepted. */
  get isComplete(): boolean {
    return this.#done;
  }

  /** Feeds input bytes; throws TrailingDataError, CorruptChunkError, or whatever `onFrame` throws. */
  write(input: Uint8Array): void {
    const data = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
    let offset = 0;
    while (offset < data.length) {
      if (this.#done) throw new TrailingDataError(this.#position - 1);
      if (this.#have === 0) {
        const consumed = this.#readWholeFrame(data, offset);
        if (consumed > 0) {
          offset += consumed;
          continue;
        }
      }
      offset += this.#copyIntoBuffer(data, offset);
    }
  }

  /** Signals end of input; throws TruncatedArchiveError unless the last frame was accepted. */
  end(onPartialFrame?: PartialFrameHandler): void {
    if (this.#done) return;
    if (this.#have === 0) throw new TruncatedArchiveError("chunk-boundary", this.#position);
    if (this.#have > FRAME_HEADER_LENGTH && onPartialFrame) {
      onPartialFrame(this.#buffer.subarray(0, FRAME_HEADER_LENGTH), this.#buffer.subarray(FRAME_HEADER_LENGTH, this.#have), this.#position);
    }
    throw new TruncatedArchiveError("mid-chunk", this.#position);
  }

  // Zero-copy path: when a whole frame sits in the input, hand out a view of it.
  #readWholeFrame(data: Buffer, offset: number): number {
    if (data.length - offset < FRAME_HEADER_LENGTH) return 0;
    const header = data.subarray(offset, offset + FRAME_HEADER_LENGTH);
    const total = this.#checkFrameHeader(header);
    if (data.length - offset < total) return 0;
    this.#acceptFrame(header, data.subarray(offset + FRAME_HEADER_LENGTH, offset + total));
    return total;
  }

  #copyIntoBuffer(data: Buffer, offset: number): number {
    const target = this.#have < FRAME_HEADER_LENGTH ? FRAME_HEADER_LENGTH : this.#frameLength;
    const n = Math.min(target - this.#have, data.length - offset);
    data.copy(this.#buffer, this.#have, offset, offset + n);
    this.#have += n;
    if (this.#have === FRAME_HEADER_LENGTH && target === FRAME_HEADER_LENGTH) {
      this.#frameLength = this.#checkFrameHeader(this.#buffer.subarray(0, FRAME_HEADER_LENGTH));
    }
    if (this.#have === this.#frameLength && this.#have > FRAME_HEADER_LENGTH) {
      this.#have = 0;
      this.#acceptFrame(this.#buffer.subarray(0, FRAME_HEADER_LENGTH), this.#buffer.subarray(FRAME_HEADER_LENGTH, this.#frameLength));
    }
    return n;
  }

  // Returns the whole frame length. Values no writer produces are damage to this frame.
  #checkFrameHeader(header: Buffer): number {
    const flag = header[8]!;
    const length = header.readUInt32BE(9);
    const damaged = (flag !== FLAG_MORE && flag !== FLAG_LAST) || length > this.#chunkSize || (flag === FLAG_MORE && length !== this.#chunkSize);
    if (damaged) throw new CorruptChunkError(this.#position, "its frame header is damaged");
    return FRAME_HEADER_LENGTH + length + TAG_LENGTH;
  }

  #acceptFrame(header: Buffer, body: Buffer): void {
    const flag = header[8]!;
    this.#onFrame({ position: this.#position, header, flag, length: header.readUInt32BE(9), body });
    this.#position++;
    if (flag === FLAG_LAST) this.#done = true;
  }
}
