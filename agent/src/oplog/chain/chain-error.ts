// The one failure of checking a chain of slices: which slice and why, with what to do.
export class ChainError extends Error {
  override readonly name = "ChainError";
  readonly hint: string | undefined;

  constructor(message: string, details: { hint?: string; cause?: unknown } = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.hint = details.hint;
  }
}
