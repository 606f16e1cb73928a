import type { Config } from "../config";
import { forwardedClientAddress } from "./client-ip";

/** A host as a URL may carry it: a name or IPv4 address, or a bracketed IPv6 one, with an optional port. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?$/;

// Each proxy appends what it saw, as to X-Forwarded-For: the entry TRUST_PROXY places from the right.
const forwardedEntry = forwardedClientAddress;

/**
 * The server's address as the requester reached it, for what a user copies to another machine
 * (install.sh, install.ps1, the setup command): PUBLIC_URL when it is set; otherwise the request's
 * Host (X-Forwarded-Host and -Proto behind TRUST_PROXY), so that a script fetched from
 * http://192.0.2.2:3000 downloads from there and not from the default http://localhost:3000.
 * A host that is not a plain host[:port] (it is written into scripts) falls back to PUBLIC_URL.
 */
export function requestOrigin(config: Pick<Config, "publicUrl" | "publicUrlSet" | "trustProxyHops">, request: Request): string {
  if (config.publicUrlSet) return config.publicUrl;
  const url = new URL(request.url);
  const forwardedHost = forwardedEntry(request.headers.get("x-forwarded-host"), config.trustProxyHops);
  const forwardedProto = forwardedEntry(request.headers.get("x-forwarded-proto"), config.trustProxyHops);
  const host = forwardedHost ?? request.headers.get("host") ?? url.host;
  const protocol = forwardedProto ?? url.protocol.replace(/:$/, "");
  if (!HOST.test(host) || (protocol !== "http" && protocol !== "https")) return config.publicUrl;
  return `${protocol}://${host.toLowerCase()}`;
}
