import { useParams } from "wouter";
import { EmailChangeLink } from "../../features/account/components/email-change-link";
import { AuthCard } from "../../features/auth/components/auth-card";
import { usePageTitle } from "../../lib/page-title";
import NotFoundPage from "./not-found";

export default function EmailChangePage() {
  usePageTitle("E-mail change");
  const { action, token } = useParams<{ action: string; token: string }>();
  if ((action !== "confirm" && action !== "undo") || !token) return <NotFoundPage />;
  return (
    <AuthCard title={action === "confirm" ? "Confirm your new e-mail" : "Undo the e-mail change"}>
      <EmailChangeLink action={action} token={token} />
    </AuthCard>
  );
}
