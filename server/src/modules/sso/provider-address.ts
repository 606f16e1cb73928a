// An SSO issuer is typed by any team's owner (anyone may found a team), and the server then calls
// it, and the JWKS and token endpoints its discovery names: without care, a way to make the server
// call its own network and learn from the answers which ports are open. The webhook rules apply
// (webhooks/target.ts): unless SSO_ALLOW_PRIVATE=true, every address a URL's host resolves to must
// be public, checked before each request, so an open and a closed private port answer the same.
import type * as oidc from "openid-client";
import { resolveWebhookTarget, WebhookTargetError } from "../webhooks/target";

/** A provider URL on an address the server does not call; the message is for the owner. */
export class ProviderAddressError extends Error {
  override name = "ProviderAddressError";
}

/** fetch for openid-client: refuses a non-public address before connecting, unless `allowPrivate`. */
export function providerFetch(allowPrivate: boolean): oidc.CustomFetch {
  return async (url, options) => {
    if (!allowPrivate) {
      try {
        await resolveWebhookTarget(new URL(url), { allowPrivate: false });
      } catch (error) {
        if (!(error instanceof WebhookTargetError)) throw error;
        throw new ProviderAddressError(
          `${error.message.replace("The webhook address", "The provider's address").replace("Webhooks may not", "Single sign-on may not")} ` +
            "A self-hosted server whose provider is on its own network sets SSO_ALLOW_PRIVATE=true.",
        );
      }
    }
    return fetch(url, options as RequestInit);
  };
}

/** The ProviderAddressError behind an openid-client failure, if that is what it was. */
export function providerAddressErrorIn(error: unknown): ProviderAddressError | null {
  for (let current = error; current; current = (current as { cause?: unknown }).cause) {
    if (current instanceof ProviderAddressError) return current;
  }
  return null;
}
