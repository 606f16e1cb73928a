import { createHash } from "node:crypto";

/** What the database keeps of an agent's own token: its SHA-256, in hex. */
export const hashAgentToken = (token: string) => createHash("sha256").update(token).digest("hex");
