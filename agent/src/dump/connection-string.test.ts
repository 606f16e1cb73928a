// Redaction of what tools print about connection strings: mongodump quotes the whole string in
// its connection errors, options included (seen with a refused client certificate).
import { expect, test } from "bun:test";
import { readUriReadPreference, redactSecrets, withPrimaryReadPreference } from "./connection-string.ts";

const URI =
  "mongodb://db1:27017/shop?tls=true&authMechanism=MONGODB-X509&tlsCertificateKeyFile=%2Fetc%2Fagent.pem&tlsCertificateKeyFilePassword=p%26ss-w0rd&serverSelectionTimeoutMS=2000";

test("a client key's password is removed from a tool's message quoting the string its own way", () => {
  // mongodump's rendering: the string without the database path, options in its own order.
  const quoted =
    "failed to connect to mongodb://db1:27017/?tls=true&authMechanism=MONGODB-X509&tlsCertificateKeyFile=%2Fetc%2Fagent.pem&tlsCertificateKeyFilePassword=p%26ss-w0rd&serverSelectionTimeoutMS=2000: server selection error";
  const redacted = redactSecrets(quoted, [URI]);
  expect(redacted).toBe(
    "failed to connect to mongodb://db1:27017/?tls=true&authMechanism=MONGODB-X509&tlsCertificateKeyFile=%2Fetc%2Fagent.pem&tlsCertificateKeyFilePassword=***&serverSelectionTimeoutMS=2000: server selection error",
  );
});

test("the password quoted without its option name, decoded or not, is removed too", () => {
  expect(redactSecrets("could not decrypt with p&ss-w0rd or p%26ss-w0rd", [URI])).toBe("could not decrypt with *** or ***");
});

test("mechanism properties, which may hold a session token, are removed", () => {
  const uri = "mongodb://h/?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:abc123token";
  const quoted = "failed: mongodb://h/?authMechanismProperties=AWS_SESSION_TOKEN:abc123token&authMechanism=MONGODB-AWS";
  expect(redactSecrets(quoted, [uri])).toBe("failed: mongodb://h/?authMechanismProperties=***&authMechanism=MONGODB-AWS");
});

test("withPrimaryReadPreference drops the read preference options and keeps the rest as given", () => {
  expect(
    withPrimaryReadPreference(
      "mongodb://u:p%40ss@a:1,b:2/my%20db?replicaSet=rs0&readPreference=secondary&readPreferenceTags=dc:east&maxStalenessSeconds=120&tls=true",
    ),
  ).toBe("mongodb://u:p%40ss@a:1,b:2/my%20db?replicaSet=rs0&tls=true");
  expect(withPrimaryReadPreference("mongodb+srv://cluster.test/?readPreference=secondaryPreferred")).toBe("mongodb+srv://cluster.test/");
  expect(withPrimaryReadPreference("mongodb://a:1/shop?retryWrites=true")).toBe("mongodb://a:1/shop?retryWrites=true");
  expect(withPrimaryReadPreference("mongodb://a:1")).toBe("mongodb://a:1");
});

test("readUriReadPreference names the mode, primary when the string names none", () => {
  expect(readUriReadPreference("mongodb://a:1/shop?replicaSet=rs0&ReadPreference=secondaryPreferred")).toBe("secondaryPreferred");
  expect(readUriReadPreference("mongodb://a:1/shop?replicaSet=rs0")).toBe("primary");
});
