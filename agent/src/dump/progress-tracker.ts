import type { Progress, ProgressListener } from "./types.ts";

const DEFAULT_INTERVAL_MS = 250;

/**
 * Counts documents and turns the count into throttled Progress calls: at most one per interval,
 * plus one whenever the collection changes and a final one. The total is either known up front
 * (dumps: estimated counts) or estimated from the share of input read (restores).
 */
export class ProgressTracker {
  current = 0;
  total = 0;
  collection = "";
  private lastEmit = 0;
  private lastCollection: string | undefined;

  constructor(
    private readonly listener: ProgressListener | undefined,
    private readonly intervalMs = DEFAULT_INTERVAL_MS,
    /** For restores: the share (0 to 1) of the input read so far, or undefined when unknown. */
    private readonly readFraction?: () => number | undefined,
  ) {}

  /** Records documents done in a collection and reports when due. */
  add(count: number, collection: string): void {
    this.current += count;
    this.collection = collection;
    this.maybeEmit();
  }

  /** Sets the counts as a tool reported them (native engines) and reports when due. */
  update(current: number, total: number, collection: string): void {
    this.current = current;
    this.total = total;
    this.collection = collection;
    this.maybeEmit();
  }

  /** Moves to a collection without new documents (e.g. an empty one) and reports when due. */
  enter(collection: string): void {
    this.collection = collection;
    this.maybeEmit();
  }

  /** Reports the end: total equals current and the percentage is 100. */
  finish(): void {
    this.total = Math.max(this.total, this.current);
    if (this.readFraction) this.total = this.current;
    this.listener?.({ current: this.current, total: this.total, percentage: 100, collection: this.collection });
  }

  /** Returns the progress as it stands; never throws. */
  snapshot(): Progress {
    if (this.readFraction) {
      const fraction = this.readFraction();
      if (fraction === undefined || fraction <= 0) return { current: this.current, total: 0, percentage: 0, collection: this.collection };
      // The share of input read runs ahead of the documents restored by at most a few buffers.
      const share = Math.min(fraction, 0.999);
      const total = Math.max(this.current, Math.round(this.current / share));
      return { current: this.current, total, percentage: round1(share * 100), collection: this.collection };
    }
    const total = Math.max(this.total, this.current);
    const percentage = total === 0 ? 0 : round1(Math.min(99.9, (this.current / total) * 100));
    return { current: this.current, total, percentage, collection: this.collection };
  }

  private maybeEmit(): void {
    if (!this.listener) return;
    const now = performance.now();
    if (this.collection === this.lastCollection && now - this.lastEmit < this.intervalMs) return;
    this.lastEmit = now;
    this.lastCollection = this.collection;
    this.listener(this.snapshot());
  }
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}
