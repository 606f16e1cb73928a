// Settings → SSO: an organization's OpenID Connect connection, read, saved and removed by its
// owners. Saving checks the issuer by discovery, so a typo is caught here and not at the first
// member's sign-in.
import { and, arrayOverlaps, eq, ne } from "drizzle-orm";
import { ssoConnections } from "@db/schema";
import type { AppContext } from "../../context";
import { AppError, badRequest, conflict } from "../../lib/errors";
import { actorOf, recordAudit } from "../audit/service";
import type { CurrentOrganization } from "../organizations/current-organization";
import { hasBreakGlassOwner } from "../organizations/sso-required";
import type { ssoModel } from "./model";
import { newDomainVerificationToken, verificationRecordName, verificationRecordValue } from "./domains";
import { discoverProvider, parseIssuer } from "./provider-client";

/** Where providers send the browser back; what owners register at their provider. */
export const callbackPath = "/api/auth/sso/callback";

// Only owners reach these (lib/api-security.ts ROLE_BY_OPERATION, checked by the auth guard).
function requireTeamOwner(organization: CurrentOrganization) {
  if (organization.personal) {
    throw badRequest("Single sign-on is for team organizations: switch to (or create) the team organization whose members should use it.");
  }
}

/**
 * The connection as its owners see it (never the secret). A personal organization's owner gets
 * `available: false` rather than an error: the settings page asks on every visit, and the
 * one-person account must not meet a refusal for a tab it never sees.
 */
export async function readConnection(ctx: AppContext, organization: CurrentOrganization, origin: string) {
  const [row] = organization.personal ? [] : await ctx.db.select().from(ssoConnections).where(eq(ssoConnections.organizationId, organization.id));
  return {
    available: !organization.personal,
    configured: Boolean(row),
    issuer: row?.issuer ?? null,
    clientId: row?.clientId ?? null,
    clientSecretSet: Boolean(row),
    allowedDomains: row?.allowedDomains ?? [],
    verifiedDomains: row?.verifiedDomains ?? [],
    // What to publish in DNS to prove each listed domain (domains.ts).
    domainRecord: row?.domainVerificationToken
      ? { name: verificationRecordName("<domain>"), value: verificationRecordValue(row.domainVerificationToken) }
      : null,
    defaultRole: (row?.defaultRole ?? "viewer") as "admin" | "operator" | "viewer",
    ssoRequired: row?.ssoRequired ?? false,
    redirectUri: `${origin}${callbackPath}`,
    updatedAt: row?.updatedAt.toISOString() ?? null,
  };
}

/**
 * Saves the connection after discovery answered for its issuer (400 when it is not an OpenID
 * Connect provider, 502 when unreachable). A domain already claimed by another organization is
 * refused (409): "Sign in with SSO" must find one organization from an e-mail.
 */
export async function saveConnection(
  ctx: AppContext,
  caller: { user: { id: string; name: string; email: string }; organization: CurrentOrganization },
  input: typeof ssoModel.save.static,
  origin: string,
) {
  const { organization } = caller;
  requireTeamOwner(organization);
  const allowedDomains = [...new Set(input.allowedDomains.map((domain) => domain.trim().toLowerCase()))];
  const [existing] = await ctx.db.select().from(ssoConnections).where(eq(ssoConnections.organizationId, organization.id));
  const clientSecret = input.clientSecret ?? (existing ? ctx.ssoBox.open(existing.clientSecretCiphertext) : undefined);
  if (!clientSecret) throw badRequest("Enter the client secret the provider gave DBVault");
  // Listing a domain only claims it; a claim blocks nobody. A domain another organization proved
  // it owns is refused: that organization signs its people in.
  const [taken] = await ctx.db
    .select({ domains: ssoConnections.verifiedDomains })
    .from(ssoConnections)
    .where(and(ne(ssoConnections.organizationId, organization.id), arrayOverlaps(ssoConnections.verifiedDomains, allowedDomains)));
  if (taken) {
    const clash = allowedDomains.filter((domain) => taken.domains.includes(domain));
    throw conflict(
      `Another organization has proved it owns ${clash.join(", ")} and signs it in with SSO. Remove that domain, or ask DBVault support if it is yours.`,
    );
  }
  if (input.ssoRequired) await requireBreakGlassOwner(ctx, organization.id);
  parseIssuer(input.issuer.trim());
  // Stored as the provider names itself, so later discoveries check the same issuer exactly.
  const discovered = await discoverProvider({ issuer: input.issuer.trim(), clientId: input.clientId, clientSecret }, ctx.log, {
    allowPrivate: ctx.config.ssoAllowPrivate,
  });
  const issuer = discovered.serverMetadata().issuer;
  const values = {
    issuer,
    clientId: input.clientId.trim(),
    clientSecretCiphertext: ctx.ssoBox.seal(clientSecret),
    allowedDomains,
    defaultRole: input.defaultRole,
    ssoRequired: input.ssoRequired,
    // A domain dropped from the list loses its proof; one added again is proved again.
    verifiedDomains: (existing?.verifiedDomains ?? []).filter((domain) => allowedDomains.includes(domain)),
    domainVerificationToken: existing?.domainVerificationToken ?? newDomainVerificationToken(),
    updatedAt: ctx.now(),
  };
  await ctx.db.transaction(async (tx) => {
    await tx
      .insert(ssoConnections)
      .values({ organizationId: organization.id, ...values })
      .onConflictDoUpdate({ target: ssoConnections.organizationId, set: values });
    await recordAudit(
      tx,
      organization.id,
      "SSO_CONFIGURED",
      {
        organizationId: organization.id,
        issuer,
        allowedDomains,
        defaultRole: input.defaultRole,
        ssoRequired: input.ssoRequired,
        secretChanged: input.clientSecret !== undefined,
      },
      actorOf(caller.user, organization),
    );
  });
  ctx.log.info("sso connection saved", { organizationId: organization.id, issuer });
  return readConnection(ctx, organization, origin);
}

export const BREAK_GLASS_MESSAGE =
  "Before requiring SSO, an owner of this organization must turn two-factor sign-in on (Profile → Security): an owner's password and code is the way in when the provider is down.";

/** "SSO required" without an owner who can sign in by password and code would lock everyone out when the provider fails. */
async function requireBreakGlassOwner(ctx: AppContext, organizationId: string) {
  if (!(await hasBreakGlassOwner(ctx.db, organizationId))) throw badRequest(BREAK_GLASS_MESSAGE);
}

export async function removeConnection(ctx: AppContext, caller: { user: { id: string; name: string; email: string }; organization: CurrentOrganization }) {
  const { organization } = caller;
  requireTeamOwner(organization);
  const removed = await ctx.db.transaction(async (tx) => {
    const rows = await tx.delete(ssoConnections).where(eq(ssoConnections.organizationId, organization.id)).returning({ issuer: ssoConnections.issuer });
    if (rows.length > 0) {
      await recordAudit(tx, organization.id, "SSO_REMOVED", { organizationId: organization.id, issuer: rows[0]!.issuer }, actorOf(caller.user, organization));
    }
    return rows;
  });
  if (removed.length === 0) throw new AppError(404, "NOT_FOUND", "This organization has no single sign-on to remove.");
  return { message: "Single sign-on removed: members sign in with their passwords again." };
}
