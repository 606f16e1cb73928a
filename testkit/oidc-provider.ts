// A real OpenID Connect provider for tests: panva's oidc-provider (the certified Node
// implementation) on a loopback port, with one confidential client for DBVault (PKCE required),
// accounts whose e-mail claims a test chooses, and a sign-in that needs no form: the account is
// the one the authorization request's login_hint names (or the one `signInNextAs` sets), so a
// test follows redirects with `followSignIn` as a browser would after the user signed in.
// Attack tests replace the next ID token the token endpoint answers (`replaceNextIdToken`) with
// one minted here: signed with the provider's own key (expired, another audience) or with
// another key (forged).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeJwt, exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import Provider from "oidc-provider";

export type TestOidcAccount = { email: string; emailVerified?: boolean; name?: string };

export type TestOidcProvider = {
  /** The issuer, e.g. http://127.0.0.1:41234 (also its discovery base). */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Adds (or replaces) an account; its `sub` is stable per e-mail. */
  addAccount(account: TestOidcAccount): void;
  /** The next sign-in is this account's, whatever login_hint the request carries. */
  signInNextAs(email: string): void;
  /** The next token response carries the ID token `make` returns, from the one the provider issued. */
  replaceNextIdToken(make: (issued: string) => Promise<string>): void;
  /** An ID token like `issued`, with `changes` to its claims, signed with the provider's key (or `forged`: another key, same kid). */
  mintIdToken(issued: string, changes: JWTPayload, options?: { forged?: boolean }): Promise<string>;
  /**
   * Follows a browser's redirects from an authorization URL through the provider's sign-in to
   * the client's redirect URI; returns that URL (with code and state) without requesting it.
   */
  followSignIn(authorizationUrl: string): Promise<URL>;
  /** How many requests the provider has answered on `path` (e.g. its discovery document). */
  requestsTo(path: string): number;
  /**
   * Rotates the signing key: the JWKS publishes a new key (new kid) beside the old, and
   * `mintIdToken` signs with it from now on, as a provider does once it rotated.
   */
  rotateSigningKey(): Promise<void>;
  /** Stops answering (the port closes): the provider is down. */
  stop(): Promise<void>;
};

const SIGNING_ALG = "RS256";

export async function startTestOidcProvider(options: { redirectUris: string[]; accounts?: TestOidcAccount[] }): Promise<TestOidcProvider> {
  const accounts = new Map<string, Required<TestOidcAccount> & { sub: string }>();
  let nextSub = 0;
  const addAccount = (account: TestOidcAccount) => {
    const email = account.email.toLowerCase();
    const sub = accounts.get(email)?.sub ?? `account-${++nextSub}`;
    accounts.set(email, { email, emailVerified: account.emailVerified ?? true, name: account.name ?? email.split("@")[0]!, sub });
  };
  for (const account of options.accounts ?? []) addAccount(account);
  const accountBySub = (sub: string) => [...accounts.values()].find((account) => account.sub === sub);

  const { privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const kid = "test-signing-key";
  const signingJwk = { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG, use: "sig" };
  const { privateKey: forgerKey } = await generateKeyPair(SIGNING_ALG);
  let minting = { key: privateKey as CryptoKey, kid };
  const publishedExtra: object[] = [];
  const requestCounts = new Map<string, number>();

  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = "dbvault";
  const clientSecret = "test-client-secret-that-is-long-enough-for-hs256";
  let signInNext: string | null = null;
  let idTokenReplacement: ((issued: string) => Promise<string>) | null = null;

  const provider = new Provider(issuer, {
    clients: [
      { client_id: clientId, client_secret: clientSecret, redirect_uris: options.redirectUris, response_types: ["code"], grant_types: ["authorization_code"] },
    ],
    jwks: { keys: [signingJwk as never] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    // The e-mail claims go in the ID token itself, as many providers put them there.
    conformIdTokenClaims: false,
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    cookies: { keys: ["test-cookie-key-0123456789abcdef"] },
    // Set so the provider does not warn about its defaults on every run.
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // No consent screen: the test client is first-party, granted what it asks.
    async loadExistingGrant(ctx) {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
      grant.addOIDCScope(ctx.oidc.params!.scope as string);
      await grant.save();
      return grant;
    },
    async findAccount(_ctx, sub) {
      const account = accountBySub(sub);
      if (!account) return undefined;
      return {
        accountId: sub,
        claims: () => ({ sub, email: account.email, email_verified: account.emailVerified, name: account.name }),
      };
    },
  });

  provider.use(async (ctx, next) => {
    requestCounts.set(ctx.path, (requestCounts.get(ctx.path) ?? 0) + 1);
    const interaction = ctx.path.match(/^\/interaction\/[^/]+$/);
    if (interaction && ctx.method === "GET") {
      const details = await provider.interactionDetails(ctx.req, ctx.res);
      const email = (signInNext ?? String(details.params.login_hint ?? "")).toLowerCase();
      signInNext = null;
      const account = accounts.get(email);
      if (!account) {
        ctx.status = 400;
        ctx.body = `test provider: no account ${email}`;
        return;
      }
      ctx.respond = false;
      await provider.interactionFinished(ctx.req, ctx.res, { login: { accountId: account.sub } }, { mergeWithLastSubmission: false });
      return;
    }
    await next();
    if (ctx.path === "/jwks" && publishedExtra.length > 0) {
      const jwks = (typeof ctx.body === "string" ? JSON.parse(ctx.body) : ctx.body) as { keys: object[] };
      ctx.body = { keys: [...jwks.keys, ...publishedExtra] };
    }
    const body = ctx.body as { id_token?: string } | undefined;
    if (ctx.path === "/token" && body?.id_token && idTokenReplacement) {
      const replace = idTokenReplacement;
      idTokenReplacement = null;
      ctx.body = { ...body, id_token: await replace(body.id_token) };
    }
  });
  server.on("request", provider.callback());

  return {
    issuer,
    clientId,
    clientSecret,
    addAccount,
    signInNextAs(email) {
      signInNext = email;
    },
    replaceNextIdToken(make) {
      idTokenReplacement = make;
    },
    async mintIdToken(issued, changes, mintOptions = {}) {
      const claims = { ...decodeJwt(issued), ...changes };
      return new SignJWT(claims).setProtectedHeader({ alg: SIGNING_ALG, kid: minting.kid, typ: "JWT" }).sign(mintOptions.forged ? forgerKey : minting.key);
    },
    requestsTo(path) {
      return requestCounts.get(path) ?? 0;
    },
    async rotateSigningKey() {
      const next = await generateKeyPair(SIGNING_ALG, { extractable: true });
      const nextKid = `test-signing-key-${publishedExtra.length + 2}`;
      publishedExtra.push({ ...(await exportJWK(next.publicKey)), kid: nextKid, alg: SIGNING_ALG, use: "sig" });
      minting = { key: next.privateKey, kid: nextKid };
    },
    async followSignIn(authorizationUrl) {
      const cookies = new Map<string, string>();
      let url = new URL(authorizationUrl);
      for (let hop = 0; hop < 10; hop++) {
        if (url.origin !== issuer) return url;
        const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join("; ");
        const response = await fetch(url, { redirect: "manual", headers: cookie ? { cookie } : {} });
        for (const line of response.headers.getSetCookie()) {
          const [pair] = line.split(";");
          const at = pair!.indexOf("=");
          cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
        }
        const location = response.headers.get("location");
        if (!location) throw new Error(`test provider answered ${response.status} without a redirect: ${await response.text()}`);
        url = new URL(location, url);
      }
      throw new Error("test provider: too many redirects");
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
