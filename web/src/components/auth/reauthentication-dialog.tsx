import { type FormEvent, useEffect, useState } from "react";
import { ssoConfirmedUntil } from "../../lib/auth/sso-reauthentication";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Dialog } from "../ui/dialog";
import { AuthenticationCodeField } from "./authentication-code-field";
import { CurrentPasswordField } from "./current-password-field";
import { SsoConfirmationOption } from "./sso-confirmation-option";

/** Empty after "Confirm with SSO": the session's token is then stamped, and the server asks for nothing more. */
export type Credentials = { password?: string; code?: string };

/**
 * Asks for the password (and a code when two-factor sign-in is on) before a change the server
 * accepts only from the owner, not from a session token alone (a new API key, ...). Members who
 * sign in through their organization's provider may "Confirm with SSO" instead (a fresh sign-in
 * there); back on the page, the dialog then confirms without a password for 10 minutes.
 */
export function ReauthenticationDialog(props: {
  open: boolean;
  title: string;
  message: string;
  confirmLabel: string;
  twoFactor: boolean;
  busy: boolean;
  problem: string | null;
  onCancel: () => void;
  onConfirm: (credentials: Credentials) => void;
}) {
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const confirmedUntil = props.open ? ssoConfirmedUntil() : null;
  useEffect(() => {
    if (!props.open) return;
    setPassword("");
    setCode("");
  }, [props.open]);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    props.onConfirm(confirmedUntil ? {} : { password, ...(props.twoFactor ? { code: code.trim() } : {}) });
  };
  return (
    <Dialog open={props.open} onClose={props.onCancel} title={props.title} description={props.message}>
      <form onSubmit={onSubmit} className="mt-4 space-y-4">
        {props.problem ? <Alert>{props.problem}</Alert> : null}
        <SsoConfirmationOption active={props.open}>
          <CurrentPasswordField
            name="password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            hint="Confirm it is you: a signed-in session alone cannot make this change."
            required
            autoFocus
          />
          {props.twoFactor ? <AuthenticationCodeField value={code} onChange={setCode} /> : null}
        </SsoConfirmationOption>
        <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="outline" onClick={props.onCancel}>
            Cancel
          </Button>
          <Button type="submit" variant="destructive" disabled={props.busy || (!confirmedUntil && password === "")}>
            {props.busy ? "Working..." : props.confirmLabel}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
