import { type FormEvent, useState } from "react";
import { Alert } from "../../../components/ui/alert";
import { Button } from "../../../components/ui/button";
import { Card } from "../../../components/ui/card";
import { askConfirmation } from "../../../components/ui/confirm-dialog";
import { copyText } from "../../../components/ui/copy-text";
import { Field, inputClasses } from "../../../components/ui/field";
import { Icon } from "../../../components/ui/icons";
import { Select } from "../../../components/ui/select";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import { AuthenticationCodeField } from "../../../components/auth/authentication-code-field";
import { CurrentPasswordField } from "../../../components/auth/current-password-field";
import { SsoConfirmationOption } from "../../../components/auth/sso-confirmation-option";
import { ssoConfirmedUntil } from "../../../lib/auth/sso-reauthentication";
import { useSession } from "../../../lib/auth/use-session";
import { type ApiToken, type ApiTokenScope, useApiTokens, useCreateApiToken, useRevokeApiToken } from "../api/api-tokens";
import { describeExpiry, describeLastUsed, SCOPE_DESCRIPTIONS, TOKEN_EXPIRY_DAYS } from "../utils/api-token-display";

const SCOPES = Object.keys(SCOPE_DESCRIPTIONS) as ApiTokenScope[];

/** The create form: name, scopes, expiry. */
function CreateTokenForm({ onCreated }: { onCreated: (token: string) => void }) {
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<ApiTokenScope[]>(["read"]);
  const [days, setDays] = useState(30);
  const [problem, setProblem] = useState<string | null>(null);
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const twoFactor = useSession().user?.twoFactorEnabled ?? false;
  const create = useCreateApiToken();

  const toggle = (scope: ApiTokenScope) => setScopes((current) => (current.includes(scope) ? current.filter((s) => s !== scope) : [...current, scope]));

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) return setProblem("Give the token a name that says where it is used, e.g. nightly CI.");
    if (scopes.length === 0) return setProblem("Choose at least one scope.");
    setProblem(null);
    try {
      // A token outlives this session: the server asks who makes it, unless confirmed with SSO just now.
      const confirmation = ssoConfirmedUntil() !== null ? {} : { password, ...(twoFactor ? { code: code.trim() } : {}) };
      const created = await create.mutateAsync({ name: name.trim(), scopes, expiresInDays: days, ...confirmation });
      setName("");
      setPassword("");
      setCode("");
      onCreated(created.token);
    } catch (error) {
      setProblem(readErrorMessage(error) ?? "The token could not be created. Please try again.");
    }
  };

  return (
    <form onSubmit={onSubmit} noValidate className="mt-4 space-y-4">
      {problem ? <Alert>{problem}</Alert> : null}
      <Field label="Token name" value={name} maxLength={100} placeholder="nightly CI" onChange={(event) => setName(event.target.value)} />
      <fieldset>
        <legend className="text-sm font-medium text-slate-700">Scopes</legend>
        <div className="mt-1 space-y-1">
          {SCOPES.map((scope) => (
            <label key={scope} className="flex items-start gap-2 text-sm text-slate-700">
              <input type="checkbox" className="mt-1" checked={scopes.includes(scope)} onChange={() => toggle(scope)} />
              <span>
                <span className="font-mono">{scope}</span>
                <span className="block text-xs text-slate-500">{SCOPE_DESCRIPTIONS[scope]}</span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>
      <div>
        <label htmlFor="api-token-expiry" className="block text-sm font-medium text-slate-700">
          Expires after
        </label>
        <Select id="api-token-expiry" className="mt-1" value={days} onChange={(event) => setDays(Number(event.target.value))}>
          {TOKEN_EXPIRY_DAYS.map((choice) => (
            <option key={choice} value={choice}>
              {choice} days
            </option>
          ))}
        </Select>
      </div>
      <SsoConfirmationOption active>
        <CurrentPasswordField value={password} onChange={(event) => setPassword(event.target.value)} />
        {twoFactor ? <AuthenticationCodeField value={code} onChange={setCode} hint="With two-factor sign-in on, a new token also needs a code." /> : null}
      </SsoConfirmationOption>
      <Button type="submit" disabled={create.isPending}>
        {create.isPending ? "Creating..." : "Create token"}
      </Button>
    </form>
  );
}

function TokenRow({ token }: { token: ApiToken }) {
  const revoke = useRevokeApiToken();
  const expiry = describeExpiry(token.expiresAt);

  const onRevoke = async () => {
    const confirmed = await askConfirmation({
      title: "Revoke token",
      message: `Scripts using "${token.name}" are refused from their next request. This cannot be undone.`,
      confirmLabel: "Revoke",
      variant: "destructive",
    });
    if (!confirmed) return;
    try {
      const { message } = await revoke.mutateAsync(token.id);
      toast({ title: message, variant: "success" });
    } catch (error) {
      toast({ title: readErrorMessage(error) ?? "The token could not be revoked. Please try again.", variant: "destructive" });
    }
  };

  return (
    <li className="flex items-start justify-between gap-4 py-3">
      <div className="min-w-0 text-sm">
        <p className="font-medium text-slate-900">{token.name}</p>
        <p className="font-mono text-xs text-slate-500">
          {token.prefix}… · {token.scopes.join(", ")}
        </p>
        <p className={expiry.expired ? "text-xs text-red-600" : "text-xs text-slate-500"}>
          {expiry.text} · Last used: {describeLastUsed(token.lastUsedAt)}
          {token.lastUsedFrom ? ` from ${token.lastUsedFrom}` : ""}
        </p>
      </div>
      <Button variant="outline" size="sm" onClick={onRevoke} disabled={revoke.isPending} aria-label={`Revoke ${token.name}`}>
        Revoke
      </Button>
    </li>
  );
}

/**
 * Profile → Security: tokens for scripts and CI jobs (the KB article "API tokens for scripts and
 * CI jobs" shows them in use). A new token is shown here once; the server keeps only its hash.
 */
export function ApiTokensCard() {
  const tokens = useApiTokens();
  const [created, setCreated] = useState<string | null>(null);

  return (
    <Card className="p-6">
      <h2 className="text-lg font-semibold text-slate-900">API tokens</h2>
      <p className="text-xs text-slate-500">
        For scripts and CI jobs, sent as Authorization: Bearer. A token only does what its scopes allow, and never more than you can.
      </p>
      {created ? (
        <div className="mt-4 space-y-2 rounded-md border border-emerald-200 bg-emerald-50 p-3">
          <p className="text-sm text-emerald-900">Copy this token now: it is not shown again.</p>
          <div className="flex gap-2">
            <input readOnly aria-label="New API token" value={created} className={`${inputClasses} min-w-0 flex-1 font-mono`} spellCheck={false} />
            <Button variant="outline" onClick={() => copyText(created)}>
              <Icon name="copy" className="h-4 w-4" /> Copy
            </Button>
          </div>
          <Button variant="ghost" size="sm" onClick={() => setCreated(null)}>
            Done
          </Button>
        </div>
      ) : null}
      {tokens.isError ? <Alert className="mt-4">Your API tokens could not be loaded. Reload the page to try again.</Alert> : null}
      {tokens.data && tokens.data.length > 0 ? (
        <ul className="mt-4 divide-y divide-slate-200">
          {tokens.data.map((token) => (
            <TokenRow key={token.id} token={token} />
          ))}
        </ul>
      ) : tokens.data ? (
        <p className="mt-4 text-sm text-slate-500">No API tokens yet.</p>
      ) : null}
      <CreateTokenForm onCreated={setCreated} />
    </Card>
  );
}
