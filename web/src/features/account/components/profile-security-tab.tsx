import { type FormEvent, useState } from "react";
import { Alert } from "../../../components/ui/alert";
import { Button } from "../../../components/ui/button";
import { Card } from "../../../components/ui/card";
import { Field, inputClasses } from "../../../components/ui/field";
import { Icon } from "../../../components/ui/icons";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import { AuthenticationCodeField } from "../../../components/auth/authentication-code-field";
import { CurrentPasswordField } from "../../../components/auth/current-password-field";
import { SsoConfirmationOption } from "../../../components/auth/sso-confirmation-option";
import { ssoConfirmedUntil } from "../../../lib/auth/sso-reauthentication";
import { useSession } from "../../../lib/auth/use-session";
import { useCurrentOrganization } from "../../../lib/api/get-organizations";
import { startSession } from "../../../lib/auth/session";
import { useChangePassword } from "../api/account-mutations";
import { validatePasswordChange } from "../utils/password-change";
import { ApiTokensCard } from "./api-tokens-card";
import { SignOutEverywhereCard } from "./sign-out-everywhere-card";
import { SsoManagedNotice } from "./sso-managed-notice";
import { TwoFactorCard } from "./two-factor-card";

const EMPTY = { currentPassword: "", newPassword: "", confirmPassword: "" };

/**
 * The API key (Show/Hide), two-factor sign-in, API tokens and Change Password, which also replaces the API key
 * unless unticked: whoever learnt the old password may have copied the key shown here.
 */
export function ProfileSecurityTab({ apiKey }: { apiKey: string }) {
  const { user, isSsoSession } = useSession();
  // Agents are set up, and the key replaced, by those who administer the organization in use: a
  // Viewer or Operator there is shown neither.
  const showApiKey = useCurrentOrganization().permissions.administer;
  const [form, setForm] = useState(EMPTY);
  const [code, setCode] = useState("");
  const [rotateApiKey, setRotateApiKey] = useState(true);
  const [revokeApiTokens, setRevokeApiTokens] = useState(false);
  const twoFactor = user?.twoFactorEnabled ?? false;
  const [problem, setProblem] = useState<string | null>(null);
  const { mutate: changePassword, isPending: busy } = useChangePassword();
  const update = (key: keyof typeof EMPTY) => (event: { target: { value: string } }) => setForm((f) => ({ ...f, [key]: event.target.value }));

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    // Confirmed at the provider: the session's token is stamped and the server asks for nothing more.
    const confirmedWithSso = ssoConfirmedUntil() !== null;
    const invalid = validatePasswordChange(form, confirmedWithSso);
    setProblem(invalid);
    if (invalid) return;
    const confirmation = confirmedWithSso ? {} : { currentPassword: form.currentPassword, ...(twoFactor ? { code: code.trim() } : {}) };
    changePassword(
      { ...confirmation, newPassword: form.newPassword, rotateApiKey, revokeApiTokens },
      {
        onSuccess: (data) => {
          // The change ends every other session; this one carries on with the token it answers.
          if (user) startSession(data.token, data.apiKey ? { ...user, apiKey: data.apiKey } : user);
          setForm(EMPTY);
          setCode("");
          toast({
            title: "Password updated successfully!",
            ...(data.apiKey ? { description: "Your API key was replaced too: set up new agents with the new one. Agents already set up keep running." } : {}),
            variant: "success",
          });
        },
        onError: (error) => setProblem(readErrorMessage(error) ?? "Failed to update password"),
      },
    );
  };

  return (
    <div className="max-w-xl space-y-6">
      {showApiKey ? <ApiKeyCard apiKey={apiKey} /> : null}

      {isSsoSession ? <SsoManagedNotice what="your password and two-factor sign-in" /> : <TwoFactorCard />}

      <ApiTokensCard />

      <SignOutEverywhereCard />

      {isSsoSession ? null : (
        <Card className="p-6">
          <h2 className="text-lg font-semibold text-slate-900">Change Password</h2>
          <form onSubmit={onSubmit} noValidate className="mt-4 space-y-4">
            {problem ? <Alert>{problem}</Alert> : null}
            <SsoConfirmationOption active>
              <CurrentPasswordField value={form.currentPassword} onChange={update("currentPassword")} />
              {twoFactor ? (
                <AuthenticationCodeField value={code} onChange={setCode} hint="With two-factor sign-in on, a password change also needs a code." />
              ) : null}
            </SsoConfirmationOption>
            <Field label="New password" type="password" autoComplete="new-password" value={form.newPassword} onChange={update("newPassword")} />
            <Field label="Confirm new password" type="password" autoComplete="new-password" value={form.confirmPassword} onChange={update("confirmPassword")} />
            <label className="flex items-start gap-2 text-sm text-slate-700">
              <input type="checkbox" className="mt-1" checked={rotateApiKey} onChange={(event) => setRotateApiKey(event.target.checked)} />
              <span>
                Also replace the API key
                <span className="block text-xs text-slate-500">The old key stops setting up agents. Agents already set up keep running.</span>
              </span>
            </label>
            <label className="flex items-start gap-2 text-sm text-slate-700">
              <input type="checkbox" className="mt-1" checked={revokeApiTokens} onChange={(event) => setRevokeApiTokens(event.target.checked)} />
              <span>
                Also revoke every API token
                <span className="block text-xs text-slate-500">
                  Tick it if someone else may have used your account: scripts using your tokens stop. Either way, we e-mail you the list of your tokens.
                </span>
              </span>
            </label>
            <Button type="submit" disabled={busy}>
              {busy ? "Updating..." : "Update Password"}
            </Button>
          </form>
        </Card>
      )}
    </div>
  );
}

/** The API key new agents are set up with, behind Show; where it is replaced is Settings → Security. */
function ApiKeyCard({ apiKey }: { apiKey: string }) {
  const [shown, setShown] = useState(false);
  return (
    <Card className="p-6">
      <label htmlFor="profile-api-key" className="block text-sm font-medium text-slate-700">
        API key
      </label>
      <p className="text-xs text-slate-500">New agents are set up with this key. Regenerate it in Settings, Security.</p>
      <div className="mt-2 flex gap-2">
        <input
          id="profile-api-key"
          readOnly
          type={shown ? "text" : "password"}
          value={apiKey}
          className={`${inputClasses} min-w-0 flex-1 font-mono`}
          spellCheck={false}
        />
        <Button variant="outline" onClick={() => setShown((s) => !s)} aria-pressed={shown}>
          <Icon name={shown ? "eyeOff" : "eye"} className="h-4 w-4" /> {shown ? "Hide" : "Show"}
        </Button>
      </div>
    </Card>
  );
}
