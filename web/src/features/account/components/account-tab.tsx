import { type FormEvent, useState } from "react";
import { Alert } from "../../../components/ui/alert";
import { Button } from "../../../components/ui/button";
import { Field } from "../../../components/ui/field";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import { AuthenticationCodeField } from "../../../components/auth/authentication-code-field";
import { CurrentPasswordField } from "../../../components/auth/current-password-field";
import { SsoConfirmationOption } from "../../../components/auth/sso-confirmation-option";
import { ssoConfirmedUntil } from "../../../lib/auth/sso-reauthentication";
import { updateSessionUser } from "../../../lib/auth/session";
import { useSession } from "../../../lib/auth/use-session";
import type { Profile } from "../api/account-api";
import { useUpdateProfile } from "../api/account-mutations";
import { isEmailChange, validateProfile } from "../utils/profile-validation";
import { SsoManagedNotice } from "./sso-managed-notice";

/** A session from single sign-on sees the account's name and e-mail, without a form it would be refused. */
function ManagedAccount({ profile }: { profile: Profile }) {
  return (
    <div className="max-w-xl space-y-5">
      <dl className="space-y-3 text-sm">
        <div>
          <dt className="font-medium text-slate-700">Full name</dt>
          <dd className="text-slate-900">{profile.name}</dd>
        </div>
        <div>
          <dt className="font-medium text-slate-700">Email address</dt>
          <dd className="break-all text-slate-900">{profile.email}</dd>
        </div>
      </dl>
      <SsoManagedNotice what="your name and e-mail address" />
    </div>
  );
}

/**
 * Full name and e-mail address with Save Changes. A new e-mail asks for the current password (and
 * a code with two-factor sign-in) in the same form, and waits for the link mailed to it.
 */
export function AccountTab({ profile }: { profile: Profile }) {
  const { isSsoSession } = useSession();
  return isSsoSession ? <ManagedAccount profile={profile} /> : <AccountForm profile={profile} />;
}

function AccountForm({ profile }: { profile: Profile }) {
  const [name, setName] = useState(profile.name);
  const [email, setEmail] = useState(profile.email);
  const [currentPassword, setCurrentPassword] = useState("");
  const [code, setCode] = useState("");
  const [pendingEmail, setPendingEmail] = useState<string | null>(null);
  const [errors, setErrors] = useState<{ name?: string; email?: string; currentPassword?: string }>({});
  const { mutate: updateProfile, isPending: busy } = useUpdateProfile();
  const changingEmail = isEmailChange(profile.email, email);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    // Confirmed at the provider: the session's token is stamped and the server asks for nothing more.
    const askPassword = changingEmail && ssoConfirmedUntil() === null;
    const found = validateProfile({ name, email, currentPassword: askPassword ? currentPassword : undefined });
    setErrors(found);
    if (found.name || found.email || found.currentPassword) return;
    const confirmation = askPassword ? { currentPassword, ...(profile.twoFactorEnabled ? { code: code.trim() } : {}) } : {};
    updateProfile(
      { name: name.trim(), ...(changingEmail ? { email: email.trim(), ...confirmation } : {}) },
      {
        onSuccess: (data) => {
          const saved = { name: data.user.name, email: data.user.email };
          updateSessionUser(saved);
          setName(saved.name);
          setEmail(saved.email);
          setCurrentPassword("");
          setCode("");
          setPendingEmail(data.pendingEmail);
          toast({
            title: "Profile updated successfully!",
            description: data.pendingEmail ? `We sent a link to ${data.pendingEmail}: your e-mail changes once you open it.` : undefined,
            variant: "success",
          });
        },
        onError: (error) => toast({ title: readErrorMessage(error) ?? "Failed to update profile", variant: "destructive" }),
      },
    );
  };

  return (
    <form onSubmit={onSubmit} noValidate className="max-w-xl space-y-5">
      {pendingEmail ? (
        <Alert tone="info">
          Waiting for confirmation: open the link we sent to {pendingEmail} to start using it. Until then, sign in with {profile.email}.
        </Alert>
      ) : null}
      <Field label="Full name" autoComplete="name" value={name} error={errors.name} onChange={(e) => setName(e.target.value)} />
      <Field label="Email address" type="email" autoComplete="email" value={email} error={errors.email} onChange={(e) => setEmail(e.target.value)} />
      {changingEmail ? (
        <SsoConfirmationOption active>
          <CurrentPasswordField
            name="currentPassword"
            value={currentPassword}
            error={errors.currentPassword}
            hint="To change your e-mail, confirm it is you. We mail a link to the new address, and tell the old one."
            onChange={(e) => setCurrentPassword(e.target.value)}
          />
          {profile.twoFactorEnabled ? <AuthenticationCodeField value={code} onChange={setCode} /> : null}
        </SsoConfirmationOption>
      ) : null}
      <Button type="submit" disabled={busy}>
        {busy ? "Saving..." : "Save Changes"}
      </Button>
    </form>
  );
}
