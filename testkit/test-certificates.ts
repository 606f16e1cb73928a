// A private certificate authority for TLS tests, made with the system's openssl: a CA, a server
// certificate for 127.0.0.1/localhost, client certificates for x509 authentication (one whose key
// is encrypted with a password), and one client signed by another CA, which a server must refuse.
// Client files hold the certificate and its key together, as tlsCertificateKeyFile wants them.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface TestCertificates {
  caFile: string;
  ca: string;
  serverKey: string;
  serverCert: string;
  /** Certificate and key, unencrypted; subject CLIENT_SUBJECT. */
  clientFile: string;
  /** Certificate and key, the key encrypted with `clientPassword` (PKCS#8); subject CLIENT_SUBJECT. */
  encryptedClientFile: string;
  clientPassword: string;
  /** Certificate and key signed by another CA; same subject. */
  strangerFile: string;
}

/** The client certificates' subject, in RFC 2253 order as MongoDB names x509 users. */
export const CLIENT_SUBJECT = "CN=dbvault-agent,OU=backup,O=DBVault Test";

function openssl(args: string[], cwd: string): void {
  const result = Bun.spawnSync(["openssl", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`openssl ${args.join(" ")}: ${result.stderr.toString()}`);
}

/** Whether openssl can be run here (tests needing certificates skip with this reason otherwise). */
export const opensslMissing = Bun.which("openssl") ? null : "no openssl command";

/**
 * Writes the certificates into `dir` (created); takes a second or two (RSA key generation).
 * `serverNames` are the server certificate's DNS names besides localhost (a replica set member's
 * name from an SRV record).
 */
export function createTestCertificates(dir: string, serverNames: string[] = []): TestCertificates {
  mkdirSync(dir, { recursive: true });
  const days = ["-days", "2"];
  const newCa = (name: string) => {
    openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.pem`, "-subj", `/CN=${name}`, ...days], dir);
  };
  newCa("ca");
  newCa("other-ca");
  const names = ["localhost", ...serverNames].map((name) => `DNS:${name}`).join(",");
  writeFileSync(join(dir, "server.ext"), `subjectAltName=IP:127.0.0.1,${names}\nextendedKeyUsage=serverAuth\n`);
  writeFileSync(join(dir, "client.ext"), "extendedKeyUsage=clientAuth\n");
  const issue = (name: string, subject: string, ca: string, ext: string) => {
    openssl(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", subject], dir);
    openssl(
      ["x509", "-req", "-in", `${name}.csr`, "-CA", `${ca}.pem`, "-CAkey", `${ca}.key`, "-CAcreateserial", "-out", `${name}.crt`, "-extfile", ext, ...days],
      dir,
    );
  };
  const subject = "/O=DBVault Test/OU=backup/CN=dbvault-agent";
  issue("server", "/CN=localhost", "ca", "server.ext");
  issue("client", subject, "ca", "client.ext");
  issue("stranger", subject, "other-ca", "client.ext");
  const clientPassword = "pem-pass-7";
  openssl(["pkcs8", "-topk8", "-in", "client.key", "-out", "client-encrypted.key", "-v2", "aes-256-cbc", "-passout", `pass:${clientPassword}`], dir);
  const read = (name: string) => readFileSync(join(dir, name), "utf8");
  const bundle = (name: string, parts: string[]) => {
    writeFileSync(join(dir, name), parts.map(read).join(""), { mode: 0o600 });
    return join(dir, name);
  };
  return {
    caFile: join(dir, "ca.pem"),
    ca: read("ca.pem"),
    serverKey: read("server.key"),
    serverCert: read("server.crt"),
    clientFile: bundle("client.pem", ["client.crt", "client.key"]),
    encryptedClientFile: bundle("client-encrypted.pem", ["client.crt", "client-encrypted.key"]),
    clientPassword,
    strangerFile: bundle("stranger.pem", ["stranger.crt", "stranger.key"]),
  };
}
