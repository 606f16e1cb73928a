import { useState } from "react";
import { Alert } from "../../../components/ui/alert";
import { Button } from "../../../components/ui/button";
import { copyText } from "../../../components/ui/copy-text";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import { type SsoConnection, useVerifySsoDomain } from "../api/sso-api";

/**
 * Settings → SSO, once saved: each allowed domain, proved or not. Only a proved domain signs
 * anyone in, so the owner publishes the TXT record shown here and asks DBVault to check it.
 */
export function SsoDomains({ connection }: { connection: SsoConnection }) {
  const verify = useVerifySsoDomain();
  const [failure, setFailure] = useState<string | null>(null);
  const record = connection.domainRecord;
  if (!connection.configured || !record) return null;

  const check = (domain: string) => {
    setFailure(null);
    verify.mutate(domain, {
      onSuccess: () => toast({ title: `${domain} is proved: its people can sign in with SSO.`, variant: "success" }),
      onError: (error) => setFailure(readErrorMessage(error) ?? "The domain could not be checked. Please try again."),
    });
  };

  return (
    <section className="mt-6 space-y-3" aria-labelledby="sso-domains-title">
      <h3 id="sso-domains-title" className="text-sm font-semibold text-slate-900">
        Prove your domains
      </h3>
      <p className="text-sm text-slate-600">
        Only a domain you prove you own signs anyone in. Publish this TXT record at your DNS provider for each domain, then click Check.
      </p>
      <div className="flex items-center gap-2">
        <code className="flex-1 break-all rounded bg-slate-50 px-2 py-1 text-xs">
          {record.name} TXT "{record.value}"
        </code>
        <Button type="button" size="sm" variant="outline" onClick={() => void copyText(record.value)}>
          Copy value
        </Button>
      </div>
      {failure ? <Alert>{failure}</Alert> : null}
      <ul className="space-y-2">
        {connection.allowedDomains.map((domain) => (
          <li key={domain} className="flex items-center justify-between gap-2 text-sm">
            <span className="font-mono">{domain}</span>
            {connection.verifiedDomains.includes(domain) ? (
              <span className="text-emerald-700">Proved</span>
            ) : (
              <Button type="button" size="sm" variant="outline" onClick={() => check(domain)} disabled={verify.isPending}>
                Check {domain}
              </Button>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
