// The one failure of applying an oplog: which entry (by its position) and why. Messages quote
// namespaces and positions, never documents: entries hold the user's data.
import { formatOplogTime, type OplogTime } from "../../../../protocol/oplog-position.ts";

export class OplogApplyError extends Error {
  override readonly name = "OplogApplyError";
  /** The position of the entry that failed, when it has one. */
  readonly at: OplogTime | undefined;

  constructor(message: string, at: OplogTime | undefined, cause?: unknown) {
    super(at ? `oplog entry ${formatOplogTime(at)}: ${message}` : message, cause === undefined ? undefined : { cause });
    this.at = at;
  }
}

/** The server's error code of a failed command, or undefined; never throws. */
export function serverErrorCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "number" ? code : undefined;
}
