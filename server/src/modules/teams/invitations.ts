// Invitations by e-mail: a link valid 7 days, used once, for a named role. Only its hash is kept
// (as reset links are, auth/service.ts), so the table alone lets nobody join.
import { and, arrayContains, asc, count, eq, gt, isNull } from "drizzle-orm";
import type { DbOrTx } from "@db/client";
import { bindSsoOrganization } from "../users/sso-binding";
import { type InvitationRow, type MemberRole, invitations, organizations, ssoConnections, users } from "@db/schema";
import type { AppContext } from "../../context";
import { AppError, conflict, forbidden, notFound } from "../../lib/errors";
import type { AuthenticatedUser } from "../auth/guard";
import { hashLinkToken, newLinkToken, normaliseEmail } from "../auth/service";
import { queueMail } from "../mail/outbox";
import type { CurrentOrganization } from "../organizations/current-organization";
import { lockMemberships } from "./members";
import { recordMembershipChange } from "./membership-effects";
import { ROLE_LABELS, requireRole } from "../organizations/roles";
import { emailDomain } from "../organizations/sso-required";
import { addMembership } from "../organizations/rows";
import type { ConfirmOwnerChange } from "./owner-changes";
import { quotedName } from "../../lib/single-line";

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** Pending invitations an organization may hold at once: each one is an e-mail sent in its name. */
export const MAX_PENDING_INVITATIONS = 50;

export const INVALID_INVITATION_MESSAGE = "This invitation link is not valid. Ask the organization's admin for a new invitation.";

const pending = (now: Date) => and(isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, now));

type InvitationStatus = "pending" | "expired" | "accepted" | "revoked";

function statusOf(row: InvitationRow, now: Date): InvitationStatus {
  if (row.acceptedAt) return "accepted";
  if (row.revokedAt) return "revoked";
  return row.expiresAt.getTime() <= now.getTime() ? "expired" : "pending";
}

const toInvitationView = (row: InvitationRow, invitedBy: string | null) => ({
  id: row.id,
  email: row.email,
  role: row.role,
  invitedBy,
  createdAt: row.createdAt.toISOString(),
  expiresAt: row.expiresAt.toISOString(),
});

/**
 * Invites `email` with `role` (admin+; an owner only by an owner) and mails the link. An earlier
 * pending invitation to the same address is revoked: only the newest link works.
 */
export async function inviteMember(
  ctx: AppContext,
  actor: AuthenticatedUser,
  organization: CurrentOrganization,
  input: { email: string; role: MemberRole },
  confirmOwnerChange: ConfirmOwnerChange,
) {
  requireRole(organization, "admin", "inviting members");
  if (input.role === "owner") requireRole(organization, "owner", "inviting an owner");
  if (organization.personal) {
    throw conflict("Your personal organization is yours alone. Create a team (organization menu → Create a team) to invite people.");
  }
  if (input.role === "owner") await confirmOwnerChange();
  const email = normaliseEmail(input.email);
  const token = newLinkToken();
  const now = ctx.now();
  const row = await ctx.db.transaction(async (tx) => {
    const members = await lockMemberships(tx, organization.id);
    if (members.some((member) => member.email === email)) throw conflict(`${email} is already a member of ${organization.name}.`);
    const [open] = await tx
      .select({ total: count() })
      .from(invitations)
      .where(and(eq(invitations.organizationId, organization.id), pending(now)));
    if ((open?.total ?? 0) >= MAX_PENDING_INVITATIONS) {
      throw conflict(`${organization.name} has ${MAX_PENDING_INVITATIONS} pending invitations, the most it may. Revoke some first.`);
    }
    await tx
      .update(invitations)
      .set({ revokedAt: now })
      .where(and(eq(invitations.organizationId, organization.id), eq(invitations.email, email), pending(now)));
    const [created] = await tx
      .insert(invitations)
      .values({
        organizationId: organization.id,
        email,
        role: input.role,
        tokenHash: hashLinkToken(token),
        invitedBy: actor.id,
        createdAt: now,
        expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
      })
      .returning();
    await recordMembershipChange(tx, {
      actor: { id: actor.id, role: organization.role },
      organization,
      action: "MEMBER_INVITED",
      details: { email, role: input.role, invitationId: created!.id },
    });
    return created!;
  });
  const inviter = actor.name || actor.email;
  // Both names were chosen by the inviter: quoted, on one line, so they read as names only.
  const from = `${quotedName(inviter)} (${actor.email})`;
  await queueMail(
    ctx,
    {
      to: email,
      subject: `${quotedName(inviter)} invited you to the organization ${quotedName(organization.name)} on DBVault`,
      text: [
        `${from} invited you to join the organization ${quotedName(organization.name)} on DBVault as ${ROLE_LABELS[input.role]}.`,
        "",
        "To accept, open this link within 7 days (it works once):",
        `${ctx.config.publicUrl}/invite/${token}`,
        "",
        `No DBVault account yet? The page lets you sign up with this address (${email}) first.`,
        "If you did not expect this invitation, ignore this message: nothing happens.",
      ].join("\n"),
    },
    { giveUpAfterMs: INVITATION_TTL_MS },
  );
  ctx.log.info("member invited", { organizationId: organization.id, invitationId: row.id, role: row.role });
  return toInvitationView(row, inviter);
}

/** The organization's pending invitations (admin+), oldest first. */
export async function listInvitations(ctx: AppContext, organization: CurrentOrganization) {
  requireRole(organization, "admin", "seeing invitations");
  const rows = await ctx.db
    .select({ invitation: invitations, inviterName: users.name, inviterEmail: users.email })
    .from(invitations)
    .leftJoin(users, eq(users.id, invitations.invitedBy))
    .where(and(eq(invitations.organizationId, organization.id), pending(ctx.now())))
    .orderBy(asc(invitations.createdAt), asc(invitations.id));
  return rows.map((row) => toInvitationView(row.invitation, row.inviterName || row.inviterEmail || null));
}

/** Revokes a pending invitation (admin+): its link stops working. */
export async function revokeInvitation(ctx: AppContext, actorId: string, organization: CurrentOrganization, invitationId: string) {
  requireRole(organization, "admin", "revoking invitations");
  const now = ctx.now();
  const revoked = await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .update(invitations)
      .set({ revokedAt: now })
      .where(and(eq(invitations.id, invitationId), eq(invitations.organizationId, organization.id), pending(now)))
      .returning();
    if (!row) throw notFound("Pending invitation");
    await recordMembershipChange(tx, {
      actor: { id: actorId, role: organization.role },
      organization,
      action: "INVITATION_REVOKED",
      details: { email: row.email, role: row.role, invitationId: row.id },
    });
    return row;
  });
  return { message: `The invitation to ${revoked.email} was revoked: its link no longer works.` };
}

async function findInvitation(ctx: AppContext, token: string) {
  const [found] = await ctx.db
    .select({ invitation: invitations, organizationName: organizations.name, inviterName: users.name, inviterEmail: users.email })
    .from(invitations)
    .innerJoin(organizations, eq(organizations.id, invitations.organizationId))
    .leftJoin(users, eq(users.id, invitations.invitedBy))
    .where(eq(invitations.tokenHash, hashLinkToken(token)));
  if (!found) throw new AppError(404, "NOT_FOUND", INVALID_INVITATION_MESSAGE);
  return found;
}

/** What the invitation page shows before accepting; public, the link's token is the proof. */
export async function previewInvitation(ctx: AppContext, token: string) {
  const found = await findInvitation(ctx, token);
  return {
    organizationName: found.organizationName,
    role: found.invitation.role,
    email: found.invitation.email,
    invitedBy: found.inviterName || found.inviterEmail || null,
    expiresAt: found.invitation.expiresAt.toISOString(),
    status: statusOf(found.invitation, ctx.now()),
  };
}

const UNUSABLE: Record<Exclude<InvitationStatus, "pending">, string> = {
  accepted: "This invitation was already used. Ask the organization's admin for a new one if you need it.",
  revoked: "This invitation was revoked. Ask the organization's admin for a new one if you need it.",
  expired: "This invitation expired: links are valid for 7 days. Ask the organization's admin for a new one.",
};

/**
 * Makes the signed-in user a member with the invitation's role, once: the account's e-mail must be
 * the invited one. The link is claimed in the same transaction that adds the membership.
 */
/**
 * Accepting an invitation is the account's own act: when the organization signs in the account's
 * e-mail domain with single sign-on it proved, the account's SSO is bound to it (unless bound
 * already), and that provider may sign it in from then on, two-factor sign-in or not.
 */
async function linkSsoOnAcceptance(tx: DbOrTx, user: AuthenticatedUser, organizationId: string) {
  if (user.ssoOrganizationId) return;
  const [connection] = await tx
    .select({ id: ssoConnections.id })
    .from(ssoConnections)
    .where(and(eq(ssoConnections.organizationId, organizationId), arrayContains(ssoConnections.verifiedDomains, [emailDomain(user.email)])));
  if (!connection) return;
  await bindSsoOrganization(tx, user.id, organizationId, "invitation");
}

export async function acceptInvitation(ctx: AppContext, user: AuthenticatedUser, token: string) {
  const found = await findInvitation(ctx, token);
  const { invitation } = found;
  const now = ctx.now();
  const status = statusOf(invitation, now);
  if (status !== "pending") throw conflict(UNUSABLE[status]);
  if (normaliseEmail(user.email) !== invitation.email) {
    throw forbidden(
      `This invitation is for ${invitation.email}, and you are signed in as ${user.email}. Sign out, then sign in or sign up with ${invitation.email}.`,
    );
  }
  const organization = { id: invitation.organizationId, name: found.organizationName };
  await ctx.db.transaction(async (tx) => {
    const members = await lockMemberships(tx, organization.id);
    if (members.some((member) => member.userId === user.id)) throw conflict(`You are already a member of ${organization.name}.`);
    const [claimed] = await tx
      .update(invitations)
      .set({ acceptedAt: now })
      .where(and(eq(invitations.id, invitation.id), pending(now)))
      .returning({ id: invitations.id });
    if (!claimed) throw conflict(UNUSABLE.accepted);
    await addMembership(tx, organization.id, user.id, invitation.role);
    await linkSsoOnAcceptance(tx, user, organization.id);
    await recordMembershipChange(tx, {
      actor: { id: user.id, role: invitation.role },
      organization,
      action: "INVITATION_ACCEPTED",
      details: { role: invitation.role, invitedBy: found.inviterEmail, invitationId: invitation.id },
    });
  });
  return {
    message: `You joined ${organization.name} as ${ROLE_LABELS[invitation.role]}.`,
    organization: { ...organization, personal: false, role: invitation.role },
  };
}
