// SCRAM-SHA-256 (RFC 7677), the mechanism the driver picks by default, and SCRAM-SHA-1 (RFC
// 5802, what a string with authMechanism=SCRAM-SHA-1 asks, and mongod before 4.0 spoke), so
// tests can exercise authenticated URIs and wrong-password failures. Enabled only when the server
// is started with users. Passwords are used as given: SASLprep is the identity for the ASCII
// passwords tests use (SCRAM-SHA-1 never applies it: its password is MongoDB's MD5 digest).
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from "node:crypto";
import { Binary } from "bson";
import type { CommandContext, CommandHandler, Document, TestUser } from "../command-context";
import { CommandError } from "../errors";

type Hash = "sha256" | "sha1";

// mongod's default scramSHA256IterationCount and scramIterationCount.
const MECHANISMS: Record<string, { hash: Hash; iterations: number; keyBytes: number }> = {
  "SCRAM-SHA-256": { hash: "sha256", iterations: 15_000, keyBytes: 32 },
  "SCRAM-SHA-1": { hash: "sha1", iterations: 10_000, keyBytes: 20 },
};

type Conversation = {
  user: TestUser;
  db: string;
  clientFirstBare: string;
  serverFirst: string;
  nonce: string;
  saltedPassword: Buffer;
  hash: Hash;
  skipEmptyExchange: boolean;
  done: boolean;
};

function failAuthentication(): never {
  throw new CommandError(18, "Authentication failed.");
}

function readPayload(body: Document): string {
  const payload = body.payload;
  if (payload instanceof Binary) return Buffer.from(payload.buffer.subarray(0, payload.position)).toString("utf8");
  if (typeof payload === "string") return payload;
  return failAuthentication();
}

function parseAttributes(message: string): Map<string, string> {
  return new Map(message.split(",").map((part) => [part.slice(0, 1), part.slice(2)]));
}

function decodeUsername(value: string): string {
  return value.replaceAll("=2C", ",").replaceAll("=3D", "=");
}

function computeHmac(hash: Hash, key: Buffer, text: string): Buffer {
  return createHmac(hash, key).update(text).digest();
}

/** SCRAM-SHA-1's password: MongoDB hashes "user:mongo:password" with MD5 first (the old MONGODB-CR digest). */
function describeSha1Password(user: TestUser): string {
  return createHash("md5").update(`${user.username}:mongo:${user.password}`).digest("hex");
}

function startSasl(context: CommandContext): Document {
  const mechanism = Object.hasOwn(MECHANISMS, String(context.body.mechanism)) ? MECHANISMS[String(context.body.mechanism)] : undefined;
  if (!mechanism) {
    throw new CommandError(2, `Received authentication for mechanism ${String(context.body.mechanism)} which is not enabled`);
  }
  const clientFirst = readPayload(context.body);
  if (!clientFirst.startsWith("n,,")) failAuthentication();
  const clientFirstBare = clientFirst.slice(3);
  const attributes = parseAttributes(clientFirstBare);
  const username = decodeUsername(attributes.get("n") ?? "");
  const user = context.users.find((candidate) => candidate.username === username && (candidate.database ?? "admin") === context.db);
  const clientNonce = attributes.get("r");
  if (!user || !clientNonce) failAuthentication();
  const salt = randomBytes(16);
  const nonce = clientNonce + randomBytes(24).toString("base64");
  const { hash, iterations, keyBytes } = mechanism;
  const serverFirst = `r=${nonce},s=${salt.toString("base64")},i=${iterations}`;
  const password = hash === "sha1" ? describeSha1Password(user) : user.password;
  const saltedPassword = pbkdf2Sync(password, salt, iterations, keyBytes, hash);
  const skipEmptyExchange = (context.body.options as Document | undefined)?.skipEmptyExchange === true;
  const conversation: Conversation = { user, db: context.db, clientFirstBare, serverFirst, nonce, saltedPassword, hash, skipEmptyExchange, done: false };
  context.connection.scram = conversation;
  return { conversationId: 1, done: false, payload: new Binary(Buffer.from(serverFirst)) };
}

function continueSasl(context: CommandContext): Document {
  const conversation = context.connection.scram as Conversation | undefined;
  if (!conversation) throw new CommandError(17, "No SASL session state found");
  if (conversation.done) {
    // The empty final round of clients that do not ask to skip it.
    context.connection.scram = undefined;
    return { conversationId: 1, done: true, payload: new Binary(Buffer.alloc(0)) };
  }
  const clientFinal = readPayload(context.body);
  const attributes = parseAttributes(clientFinal);
  const proofAt = clientFinal.lastIndexOf(",p=");
  if (attributes.get("r") !== conversation.nonce || proofAt < 0) failAuthentication();
  const authMessage = `${conversation.clientFirstBare},${conversation.serverFirst},${clientFinal.slice(0, proofAt)}`;
  const { hash } = conversation;
  const clientKey = computeHmac(hash, conversation.saltedPassword, "Client Key");
  const storedKey = createHash(hash).update(clientKey).digest();
  const signature = computeHmac(hash, storedKey, authMessage);
  const expectedProof = Buffer.from(clientKey.map((byte, i) => byte ^ signature[i]!));
  const proof = Buffer.from(attributes.get("p") ?? "", "base64");
  if (proof.length !== expectedProof.length || !timingSafeEqual(proof, expectedProof)) {
    context.connection.scram = undefined;
    failAuthentication();
  }
  const serverSignature = computeHmac(hash, computeHmac(hash, conversation.saltedPassword, "Server Key"), authMessage).toString("base64");
  context.connection.authenticatedUser = { user: conversation.user.username, db: conversation.db };
  conversation.done = true;
  if (conversation.skipEmptyExchange) context.connection.scram = undefined;
  return { conversationId: 1, done: conversation.skipEmptyExchange, payload: new Binary(Buffer.from(`v=${serverSignature}`)) };
}

// MONGODB-X509: the user is the subject of the certificate the TLS handshake verified, held in
// $external; a `user` given must be that subject, as mongod checks.
function authenticateX509(context: CommandContext): Document {
  const { body, connection } = context;
  if (body.mechanism !== "MONGODB-X509") throw new CommandError(2, `Received authentication for mechanism ${String(body.mechanism)} which is not enabled`);
  if (context.db !== "$external") throw new CommandError(2, "X.509 authentication must always use the $external database.");
  const subject = connection.peerSubject;
  if (subject === undefined) throw new CommandError(9, "No verified subject name available from client");
  if (typeof body.user === "string" && body.user !== subject) throw new CommandError(11, "There is no x.509 client certificate matching the user.");
  const user = context.users.find((candidate) => candidate.database === "$external" && candidate.username === subject);
  if (!user) failAuthentication();
  connection.authenticatedUser = { user: subject, db: "$external" };
  return { dbname: "$external", user: subject };
}

export const authCommands: Record<string, CommandHandler> = {
  authenticate: authenticateX509,
  saslStart: startSasl,
  saslContinue: continueSasl,
  logout: (context) => {
    context.connection.authenticatedUser = undefined;
    return {};
  },
};
