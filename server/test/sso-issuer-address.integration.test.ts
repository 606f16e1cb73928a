// SSRF through the SSO issuer: any user may found a team and save an issuer, which the server then
// calls. An issuer of http://127.0.0.1:PORT answered differently for an open and a closed port (a
// loopback port scanner). Without SSO_ALLOW_PRIVATE, the provider's addresses follow the webhook
// rules (public addresses only, checked before connecting): loopback is refused the same way
// whether a port is open or closed, and with the opt-in a provider on loopback works.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer } from "node:net";
import { startTestOidcProvider, type TestOidcProvider } from "../../testkit/oidc-provider";
import { createTeamOrganization } from "../src/modules/organizations/create-team";
import { startTestServer, type TestServer } from "./harness";

let provider: TestOidcProvider;
beforeAll(async () => {
  provider = await startTestOidcProvider({ redirectUris: ["http://127.0.0.1/api/auth/sso/callback"] });
});
afterAll(() => provider.stop());

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function saveIssuer(server: TestServer, issuer: string) {
  const owner = await server.registerUser();
  const { organization } = await createTeamOrganization(server.ctx, { name: "Scanners", ownerId: owner.id });
  return server.call("PUT", "/api/organizations/current/sso/", {
    token: owner.token,
    headers: { "X-Organization-Id": organization.id },
    body: {
      issuer,
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      allowedDomains: ["scan.test"],
      defaultRole: "viewer",
      ssoRequired: false,
    },
  });
}

describe("without SSO_ALLOW_PRIVATE", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  }, 60_000);
  afterAll(() => server.close());

  test("a loopback issuer is refused, the same for an open port (a real provider) and a closed one", async () => {
    const open = await saveIssuer(server, provider.issuer);
    const closed = await saveIssuer(server, `http://127.0.0.1:${await closedPort()}`);
    expect(open.status).toBe(400);
    expect(open.body.message).toContain("is not a public internet address (loopback)");
    expect(open.body.message).toContain("SSO_ALLOW_PRIVATE=true");
    // Only the port differs in what is answered.
    const portless = (message: string) => message.replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:PORT");
    expect([closed.status, portless(closed.body.message)]).toEqual([open.status, portless(open.body.message)]);
  });

  test("private and metadata addresses are refused before any connection", async () => {
    for (const issuer of ["https://10.0.0.1", "https://169.254.169.254", "https://[::1]"]) {
      const res = await saveIssuer(server, issuer);
      expect([issuer, res.status]).toEqual([issuer, 400]);
      expect(res.body.message).toContain("is not a public internet address");
    }
  });
});

describe("with SSO_ALLOW_PRIVATE=true", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ SSO_ALLOW_PRIVATE: "true" });
  }, 60_000);
  afterAll(() => server.close());

  test("a provider on loopback is saved", async () => {
    expect((await saveIssuer(server, provider.issuer)).status).toBe(200);
  });
});
