import { useParams } from "wouter";
import { AuthCard } from "../../features/auth/components/auth-card";
import { InvitationLink } from "../../features/organizations/components/invitation-link";
import { usePageTitle } from "../../lib/page-title";

export default function InvitationPage() {
  usePageTitle("Invitation");
  const { token } = useParams<{ token: string }>();
  return (
    <AuthCard title="You are invited">
      <InvitationLink token={token} />
    </AuthCard>
  );
}
