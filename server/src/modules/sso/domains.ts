// Proving an SSO domain. Listing a domain in Settings → SSO claims it; only a proved one signs
// anyone in, since whoever runs the provider can vouch for any address of it. Proof: a DNS TXT
// record only the domain's owner can publish, or, on a self-hosted server, its admin's word.
import { randomBytes } from "node:crypto";
import { Resolver } from "node:dns/promises";
import { and, arrayContains, eq, ne } from "drizzle-orm";
import { ssoConnections } from "@db/schema";
import type { AppContext } from "../../context";
import { AppError, badRequest, conflict, notFound } from "../../lib/errors";
import { type AuditActor, recordAudit } from "../audit/service";

/** The name of the TXT record that proves a domain: `_dbvault-verify.<domain>`. */
export const verificationRecordName = (domain: string) => `_dbvault-verify.${domain}`;
export const verificationRecordValue = (token: string) => `dbvault-verify=${token}`;
export const newDomainVerificationToken = () => randomBytes(18).toString("base64url");

const DNS_TIMEOUT_MS = 5000;

/** The TXT strings published at `name`; an empty list when there are none, 502 when DNS does not answer. */
async function txtRecords(ctx: AppContext, name: string): Promise<string[]> {
  const resolver = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: 2 });
  if (ctx.config.ssoDnsResolver) resolver.setServers([ctx.config.ssoDnsResolver]);
  try {
    return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(""));
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ENOTFOUND" || code === "ENODATA" || code === "NXDOMAIN") return [];
    ctx.log.warn("sso domain check: dns failed", { name, code });
    throw new AppError(502, "SERVICE_UNAVAILABLE", `DNS did not answer for ${name}. Try again in a few minutes.`);
  }
}

/** The connection of an organization, or 404. */
async function connectionOf(ctx: AppContext, organizationId: string) {
  const [row] = await ctx.db.select().from(ssoConnections).where(eq(ssoConnections.organizationId, organizationId));
  if (!row) throw notFound("Single sign-on connection");
  return row;
}

/** 409 when another organization proved the domain first: it signs that domain's people in. */
async function refuseProvedElsewhere(ctx: AppContext, organizationId: string, domain: string) {
  const [other] = await ctx.db
    .select({ id: ssoConnections.id })
    .from(ssoConnections)
    .where(and(ne(ssoConnections.organizationId, organizationId), arrayContains(ssoConnections.verifiedDomains, [domain])));
  if (other) throw conflict(`Another organization has proved it owns ${domain}. Ask DBVault support if it is yours.`);
}

async function markProved(ctx: AppContext, connection: typeof ssoConnections.$inferSelect, domain: string, how: "dns" | "admin", actor: AuditActor) {
  const verifiedDomains = [...new Set([...connection.verifiedDomains, domain])];
  await ctx.db.transaction(async (tx) => {
    await tx.update(ssoConnections).set({ verifiedDomains, updatedAt: ctx.now() }).where(eq(ssoConnections.id, connection.id));
    await recordAudit(tx, connection.organizationId, "SSO_DOMAIN_VERIFIED", { organizationId: connection.organizationId, domain, how }, actor);
  });
  ctx.log.info("sso domain proved", { organizationId: connection.organizationId, domain, how });
  return { verifiedDomains };
}

/**
 * An owner asks DBVault to check a listed domain's TXT record (`_dbvault-verify.<domain>` holding
 * `dbvault-verify=<token>`); once found, the domain signs its people in. 400 with the record to
 * publish while it is missing.
 */
export async function proveDomainByDns(ctx: AppContext, organizationId: string, domain: string, actor: AuditActor) {
  const connection = await connectionOf(ctx, organizationId);
  const wanted = domain.trim().toLowerCase();
  if (!connection.allowedDomains.includes(wanted)) throw badRequest(`${wanted} is not one of this organization's SSO domains: add it first, then prove it.`);
  await refuseProvedElsewhere(ctx, organizationId, wanted);
  if (!connection.domainVerificationToken) throw badRequest("Save the SSO settings once more to get the record to publish.");
  const name = verificationRecordName(wanted);
  const value = verificationRecordValue(connection.domainVerificationToken);
  if (!(await txtRecords(ctx, name)).includes(value)) {
    throw badRequest(`No TXT record ${name} with the value ${value} was found. Publish it at your DNS provider, wait a few minutes, then check again.`);
  }
  return markProved(ctx, connection, wanted, "dns", actor);
}

/** A server admin vouches for an organization's domain (a self-hosted server whose DNS is private). */
export async function proveDomainAsAdmin(ctx: AppContext, organizationId: string, domain: string, actor: AuditActor) {
  const connection = await connectionOf(ctx, organizationId);
  const wanted = domain.trim().toLowerCase();
  if (!connection.allowedDomains.includes(wanted)) throw badRequest(`${wanted} is not one of this organization's SSO domains.`);
  await refuseProvedElsewhere(ctx, organizationId, wanted);
  return markProved(ctx, connection, wanted, "admin", actor);
}
