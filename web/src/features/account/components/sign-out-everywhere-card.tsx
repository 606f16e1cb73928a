import { useState } from "react";
import { Alert } from "../../../components/ui/alert";
import { Button } from "../../../components/ui/button";
import { Card } from "../../../components/ui/card";
import { answerOf, api, readErrorMessage } from "../../../lib/api-client";
import { signOut } from "../../../lib/auth/session";
import { useSession } from "../../../lib/auth/use-session";

/**
 * Profile → Security: "Sign out everywhere", for when the account may be in someone else's hands.
 * Ticked by default here (unlike the routine Sign out): a thief's API token outlives every session.
 * A session from single sign-on may not revoke the account's tokens (403 SSO_SESSION): it is not offered.
 */
export function SignOutEverywhereCard() {
  const { isSsoSession } = useSession();
  const [revokeTokensChosen, setRevokeApiTokens] = useState(true);
  const revokeApiTokens = revokeTokensChosen && !isSsoSession;
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const signOutEverywhere = async () => {
    setBusy(true);
    setProblem(null);
    try {
      await answerOf(api.auth.logout.post({ revokeApiTokens }));
      signOut({ silent: true });
    } catch (error) {
      setProblem(readErrorMessage(error) ?? "Signing out everywhere failed. Please try again.");
      setBusy(false);
    }
  };

  return (
    <Card className="p-6">
      <h2 className="text-lg font-semibold text-slate-900">Sign out everywhere</h2>
      <p className="mt-1 text-sm text-slate-600">Ends every session of your account, in every browser, this one included.</p>
      <div className="mt-4 space-y-4">
        {problem ? <Alert>{problem}</Alert> : null}
        {isSsoSession ? null : (
          <label className="flex items-start gap-2 text-sm text-slate-700">
            <input type="checkbox" className="mt-1" checked={revokeApiTokens} onChange={(event) => setRevokeApiTokens(event.target.checked)} />
            <span>
              Also revoke every API token
              <span className="block text-xs text-slate-500">Scripts using your tokens stop. We e-mail you what was revoked.</span>
            </span>
          </label>
        )}
        <Button variant="outline" onClick={() => void signOutEverywhere()} disabled={busy}>
          {busy ? "Signing out..." : "Sign out everywhere"}
        </Button>
      </div>
    </Card>
  );
}
