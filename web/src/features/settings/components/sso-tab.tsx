import { type FormEvent, useState } from "react";
import { Alert } from "../../../components/ui/alert";
import { Button } from "../../../components/ui/button";
import { Card } from "../../../components/ui/card";
import { askConfirmation } from "../../../components/ui/confirm-dialog";
import { copyText } from "../../../components/ui/copy-text";
import { Field } from "../../../components/ui/field";
import { Select } from "../../../components/ui/select";
import { Switch } from "../../../components/ui/switch";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import { type SsoConnection, type SsoDefaultRole, useRemoveSso, useSaveSso } from "../api/sso-api";
import { SsoDomains } from "./sso-domains";

const ROLE_OPTIONS: { value: SsoDefaultRole; label: string }[] = [
  { value: "viewer", label: "Viewer" },
  { value: "operator", label: "Operator" },
  { value: "admin", label: "Admin" },
];

/** Settings → SSO (owners of a team organization): the OpenID Connect provider its members sign in with. */
export function SsoTab({ connection }: { connection: SsoConnection }) {
  const [issuer, setIssuer] = useState(connection.issuer ?? "");
  const [clientId, setClientId] = useState(connection.clientId ?? "");
  const [clientSecret, setClientSecret] = useState("");
  const [domains, setDomains] = useState(connection.allowedDomains.join(", "));
  const [defaultRole, setDefaultRole] = useState<SsoDefaultRole>(connection.defaultRole);
  const [ssoRequired, setSsoRequired] = useState(connection.ssoRequired);
  const [failure, setFailure] = useState<string | null>(null);
  const save = useSaveSso();
  const removal = useRemoveSso();

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    setFailure(null);
    const allowedDomains = domains
      .split(/[\s,]+/)
      .map((domain) => domain.trim().toLowerCase())
      .filter(Boolean);
    save.mutate(
      { issuer: issuer.trim(), clientId: clientId.trim(), ...(clientSecret ? { clientSecret } : {}), allowedDomains, defaultRole, ssoRequired },
      {
        onSuccess: () => {
          setClientSecret("");
          toast({ title: "Single sign-on saved", description: "Members of these domains can now use “Sign in with SSO”.", variant: "success" });
        },
        onError: (error) => setFailure(readErrorMessage(error) ?? "Could not save single sign-on. Please try again."),
      },
    );
  }

  const remove = async () => {
    const confirmed = await askConfirmation({
      title: "Remove single sign-on?",
      message: "Members will sign in with their passwords again; those created by SSO need to reset theirs first.",
      confirmLabel: "Remove",
    });
    if (!confirmed) return;
    removal.mutate(undefined, {
      onSuccess: (data) => toast({ title: data.message, variant: "success" }),
      onError: (error) => toast({ title: "Could not remove single sign-on.", description: readErrorMessage(error) ?? undefined, variant: "destructive" }),
    });
  };

  return (
    <Card className="px-6 py-5" aria-labelledby="sso-title">
      <h2 id="sso-title" className="text-lg font-semibold text-slate-900">
        Single sign-on (OpenID Connect)
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        Register DBVault at your provider as a web application with this redirect URI, the scopes <code>openid email profile</code>, and the authorization code
        flow with PKCE:
      </p>
      <div className="mt-2 flex items-center gap-2">
        <code className="break-all rounded bg-slate-100 px-2 py-1 text-sm" data-testid="sso-redirect-uri">
          {connection.redirectUri}
        </code>
        <Button type="button" size="sm" variant="outline" onClick={() => void copyText(connection.redirectUri)}>
          Copy
        </Button>
      </div>
      <form onSubmit={onSubmit} noValidate className="mt-6 space-y-4">
        {failure ? <Alert>{failure}</Alert> : null}
        <Field label="Issuer URL" name="issuer" value={issuer} onChange={(e) => setIssuer(e.target.value)} placeholder="https://login.example.com" />
        <Field label="Client ID" name="clientId" value={clientId} onChange={(e) => setClientId(e.target.value)} />
        <Field
          label="Client secret"
          name="clientSecret"
          type="password"
          autoComplete="off"
          value={clientSecret}
          onChange={(e) => setClientSecret(e.target.value)}
          hint={connection.clientSecretSet ? "A secret is stored (never shown). Leave empty to keep it." : "Stored encrypted; never shown again."}
        />
        <Field
          label="Allowed e-mail domains"
          name="allowedDomains"
          value={domains}
          onChange={(e) => setDomains(e.target.value)}
          placeholder="example.com, example.org"
          hint="People with these e-mail domains sign in through this provider once you prove the domain (below); a first sign-in makes them members."
        />
        <div>
          <label htmlFor="sso-default-role" className="block text-sm font-medium text-slate-700">
            Role of new members
          </label>
          <Select id="sso-default-role" className="mt-1" value={defaultRole} onChange={(e) => setDefaultRole(e.target.value as SsoDefaultRole)}>
            {ROLE_OPTIONS.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </Select>
        </div>
        <div className="flex items-start gap-3">
          <Switch checked={ssoRequired} onCheckedChange={setSsoRequired} label="SSO required" />
          <div className="text-sm">
            <p className="font-medium text-slate-700">SSO required</p>
            <p className="text-slate-500">
              Members of these domains cannot sign in with a password. Owners with two-factor sign-in on still can (break-glass, when the provider is down).
            </p>
          </div>
        </div>
        <div className="flex gap-3">
          <Button type="submit" disabled={save.isPending}>
            {save.isPending ? "Checking the provider..." : "Save"}
          </Button>
          {connection.configured ? (
            <Button type="button" variant="outline" onClick={() => void remove()} disabled={removal.isPending}>
              Remove single sign-on
            </Button>
          ) : null}
        </div>
      </form>
      <SsoDomains connection={connection} />
    </Card>
  );
}
