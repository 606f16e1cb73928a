import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { messageAnswer } from "../../lib/schema";
import { authGuard } from "../auth/guard";
import { acceptInvitation, inviteMember, listInvitations, previewInvitation, revokeInvitation } from "./invitations";
import { changeMemberRole, leaveOrganization, listMembers, removeMember, transferOwnership } from "./members";
import { organizationAnswers, organizationModel } from "./model";
import { ownerChangeConfirmation } from "./owner-changes";
import { createTeam, deleteTeam, listMyOrganizations, renameOrganization } from "./service";

/**
 * The navbar's organization switcher and Settings → Team. `current` is the organization the
 * request acts in (X-Organization-Id, checked against the caller's memberships by the guard),
 * so no route takes an organization id from the client.
 */
export const organizationsController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/organizations", detail: { tags: ["Organizations"], security: [{ bearer: [] }] } })
    .use(authGuard(ctx))
    .get("/", ({ user, session }) => listMyOrganizations(ctx, user.id, session.organizationScope), {
      auth: true,
      response: { 200: organizationAnswers.list },
      detail: { summary: "The caller's organizations with their role in each (personal first)" },
    })
    .post(
      "/",
      async ({ user, body, set }) => {
        set.status = 201;
        return createTeam(ctx, user.id, body.name);
      },
      {
        auth: true,
        body: organizationModel.create,
        response: { 201: organizationAnswers.organization },
        detail: { summary: "Create a team; its creator is its owner" },
      },
    )
    .get("/current", ({ organization }) => organization, {
      auth: true,
      response: { 200: organizationAnswers.organization },
      detail: { summary: "The organization this request acts in (X-Organization-Id, or the personal one) and the caller's role there" },
    })
    .patch("/current", ({ user, organization, body }) => renameOrganization(ctx, user.id, organization, body.name), {
      auth: true,
      body: organizationModel.rename,
      response: { 200: organizationAnswers.organization },
      detail: { summary: "Rename the current organization (admin or owner)" },
    })
    .delete("/current", ({ user, organization }) => deleteTeam(ctx, user.id, organization), {
      auth: true,
      response: { 200: messageAnswer },
      detail: { summary: "Delete the current team (owner); a personal organization goes only with its account" },
    })
    .get("/current/members", ({ user, organization }) => listMembers(ctx, organization, user.id), {
      auth: true,
      response: { 200: organizationAnswers.members },
      detail: { summary: "The members of the current organization with their roles (any member)" },
    })
    .patch(
      "/current/members/:userId",
      ({ user, session, organization, params, body }) =>
        changeMemberRole(ctx, user.id, organization, params.userId, body.role, ownerChangeConfirmation(ctx, user, session, body)),
      {
        auth: true,
        params: organizationModel.memberParams,
        body: organizationModel.changeRole,
        response: { 200: messageAnswer },
        detail: {
          summary:
            "Change a member's role (admin; owners' roles and making owners: an owner's session, re-authenticated: `password` and `code`, or a stamped session; the last owner stays)",
        },
      },
    )
    .delete(
      "/current/members/:userId",
      ({ user, session, organization, params }) => removeMember(ctx, user.id, organization, params.userId, ownerChangeConfirmation(ctx, user, session)),
      {
        auth: true,
        params: organizationModel.memberParams,
        response: { 200: messageAnswer },
        detail: {
          summary:
            "Remove a member (admin; an owner only by an owner's session re-authenticated within 10 minutes); their next request and open sockets lose access",
        },
      },
    )
    .post("/current/leave", ({ user, organization }) => leaveOrganization(ctx, user.id, organization), {
      auth: true,
      response: { 200: messageAnswer },
      detail: { summary: "Leave the current organization (not the personal one; not as its last owner)" },
    })
    .post(
      "/current/transfer",
      ({ user, session, organization, body }) => transferOwnership(ctx, user.id, organization, body.userId, ownerChangeConfirmation(ctx, user, session, body)),
      {
        auth: true,
        body: organizationModel.transfer,
        response: { 200: messageAnswer },
        detail: {
          summary: "Make another member owner (owner's session, re-authenticated: `password` and `code`, or a stamped session); the caller becomes an admin",
        },
      },
    )
    .get("/current/invitations", ({ organization }) => listInvitations(ctx, organization), {
      auth: true,
      response: { 200: organizationAnswers.invitations },
      detail: { summary: "The current organization's pending invitations (admin or owner)" },
    })
    .post(
      "/current/invitations",
      async ({ user, session, organization, body, set }) => {
        const invitation = await inviteMember(ctx, user, organization, body, ownerChangeConfirmation(ctx, user, session, body));
        set.status = 201;
        return invitation;
      },
      {
        auth: true,
        body: organizationModel.invite,
        response: { 201: organizationAnswers.invitation },
        detail: { summary: "Invite an e-mail with a role (admin; owners by an owner); the link is mailed, valid 7 days, single use" },
      },
    )
    .delete("/current/invitations/:id", ({ user, organization, params }) => revokeInvitation(ctx, user.id, organization, params.id), {
      auth: true,
      params: organizationModel.invitationParams,
      response: { 200: messageAnswer },
      detail: { summary: "Revoke a pending invitation (admin or owner)" },
    });

/** The invitation link's page: a public preview, and accepting once signed in with the invited e-mail. */
export const invitationsController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/invitations", detail: { tags: ["Organizations"] } })
    .use(authGuard(ctx))
    .get("/:token", ({ params }) => previewInvitation(ctx, params.token), {
      params: organizationModel.tokenParams,
      response: { 200: organizationAnswers.preview },
      detail: { summary: "What an invitation link offers: organization, role, inviter, invited e-mail and status", security: [] },
    })
    .post("/:token/accept", ({ user, params }) => acceptInvitation(ctx, user, params.token), {
      auth: true,
      params: organizationModel.tokenParams,
      response: { 200: organizationAnswers.accepted },
      detail: { summary: "Accept an invitation as the signed-in user, whose e-mail must be the invited one", security: [{ bearer: [] }] },
    });
