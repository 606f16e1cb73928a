import { Link, useLocation } from "wouter";
import { Alert } from "../../../components/ui/alert";
import { Button, buttonClasses } from "../../../components/ui/button";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import { useSession } from "../../../lib/auth/use-session";
import { withQuery } from "../../../lib/next-path";
import { chooseOrganization } from "../../../lib/organization/chosen-organization";
import { ROLE_LABELS } from "../../../lib/organization/permissions";
import { useAcceptInvitation, useInvitationPreview } from "../api/team-api";

const UNUSABLE = {
  accepted: "This invitation was already used. Ask the organization's admin for a new one if you need it.",
  revoked: "This invitation was revoked. Ask the organization's admin for a new one if you need it.",
  expired: "This invitation expired: links are valid for 7 days. Ask the organization's admin for a new one.",
} as const;

/**
 * /invite/:token: what the invitation offers; signed out, sign in or sign up (with the invited
 * address) and come back; signed in, accept, and the organization becomes the current one.
 */
export function InvitationLink({ token }: { token: string }) {
  const { isLoggedIn, user, logout } = useSession();
  const [, setLocation] = useLocation();
  const { data: invitation, error } = useInvitationPreview(token);
  const { mutate: accept, isPending, error: acceptError } = useAcceptInvitation();

  if (error) return <Alert>{readErrorMessage(error) ?? "This invitation could not be read. Please reload the page."}</Alert>;
  if (!invitation) return <p className="text-center text-sm text-slate-500">Loading the invitation...</p>;

  const offer = (
    <p className="text-sm text-slate-700">
      {invitation.invitedBy ?? "A member"} invited <strong>{invitation.email}</strong> to join <strong>{invitation.organizationName}</strong> as{" "}
      <strong>{ROLE_LABELS[invitation.role]}</strong>.
    </p>
  );
  if (invitation.status !== "pending") {
    return (
      <div className="space-y-4">
        {offer}
        <Alert tone="warning">{UNUSABLE[invitation.status]}</Alert>
      </div>
    );
  }

  const here = `/invite/${token}`;
  if (!isLoggedIn || !user) {
    return (
      <div className="space-y-5">
        {offer}
        <p className="text-sm text-slate-600">Sign in with {invitation.email} to accept. No account yet? Sign up with that address first.</p>
        <div className="flex flex-col gap-3 sm:flex-row">
          <Link href={withQuery("/login", { next: here })} className={buttonClasses({ className: "flex-1" })}>
            Sign in to accept
          </Link>
          <Link href={withQuery("/register", { next: here, email: invitation.email })} className={buttonClasses({ variant: "outline", className: "flex-1" })}>
            Sign up to accept
          </Link>
        </div>
      </div>
    );
  }

  if (user.email.toLowerCase() !== invitation.email) {
    return (
      <div className="space-y-4">
        {offer}
        <Alert tone="warning">
          You are signed in as {user.email}. Only {invitation.email} can accept: sign out, then sign in or sign up with that address.
        </Alert>
        <Button variant="outline" onClick={() => logout()}>
          Sign out
        </Button>
      </div>
    );
  }

  const onAccept = () =>
    accept(token, {
      onSuccess: (answer) => {
        chooseOrganization(answer.organization.id);
        setLocation("/dashboard");
        toast({ title: answer.message, description: "You can switch organizations in the navigation bar.", variant: "success" });
      },
    });

  return (
    <div className="space-y-5">
      {offer}
      {acceptError ? <Alert>{readErrorMessage(acceptError) ?? "The invitation could not be accepted. Please try again."}</Alert> : null}
      <Button className="w-full" onClick={onAccept} disabled={isPending}>
        {isPending ? "Joining..." : `Join ${invitation.organizationName}`}
      </Button>
    </div>
  );
}
