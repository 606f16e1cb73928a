// The daemon's log: one line per event on stderr, where systemd's journal (or a terminal) takes
// it. JSON lines when not on a terminal, so log tooling can parse them; a readable line on a
// terminal. Callers pass ids, names and redacted messages only, never keys or connection strings.
import type { Writable } from "node:stream";

export type DaemonLog = (message: string, fields?: Record<string, unknown>) => void;

/** Builds the logger; `now` is replaceable for tests. Never throws. */
export function createDaemonLog(stream: Writable, isTTY: boolean, now: () => Date = () => new Date()): DaemonLog {
  return (message, fields = {}) => {
    const time = now().toISOString();
    if (!isTTY) {
      stream.write(`${JSON.stringify({ time, msg: message, ...fields })}\n`);
      return;
    }
    const details = Object.entries(fields)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`);
    stream.write(`${time} dbvault-agent: ${message}${details.length > 0 ? ` (${details.join(", ")})` : ""}\n`);
  };
}
