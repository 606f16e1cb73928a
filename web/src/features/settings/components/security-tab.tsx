import { type RefObject, useEffect, useState } from "react";
import { Button } from "../../../components/ui/button";
import { Card } from "../../../components/ui/card";
import { inputClasses } from "../../../components/ui/field";
import { Icon } from "../../../components/ui/icons";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage, readErrorStatus } from "../../../lib/api-client";
import { type Credentials, ReauthenticationDialog } from "../../../components/auth/reauthentication-dialog";
import { useSession } from "../../../lib/auth/use-session";
import { updateSessionUser } from "../../../lib/auth/session";
import { useProfile } from "../../../lib/api/get-profile";
import { useRegenerateApiKey } from "../api/settings-mutations";
import { useTimedFlag } from "../hooks/use-timed-flag";
import { formatServiceEndpoint, maskApiKey } from "../utils/agent-display";
import { copyText } from "../../../components/ui/copy-text";
import { useAgentReleases } from "../../../lib/agent-install";
import { AgentDownloads } from "./agent-downloads";
import { AgentSetupGuide } from "./agent-setup-guide";
import { BackupProtectionCard } from "./backup-protection-card";

/** A regenerated key stays visible this long so it can be copied into the agent (spec 9). */
const NEW_KEY_VISIBLE_MS = 30_000;

/** API key (masked, Show/Hide, Regenerate), the service endpoint with copy, and the agent setup. */
export function SecurityTab({ setupHeadingRef }: { setupHeadingRef: RefObject<HTMLHeadingElement | null> }) {
  const { user } = useSession();
  const apiKey = user?.apiKey ?? "";

  // The stored session may hold an older key (regenerated in another browser): the server's wins.
  const freshKey = useProfile().data?.apiKey;
  useEffect(() => {
    if (freshKey && freshKey !== apiKey) updateSessionUser({ apiKey: freshKey });
    // Only when the server's answer arrives; a failed one leaves the stored key shown.
  }, [freshKey, apiKey]);
  const [shown, setShown] = useState(false);
  const [newKeyShown, showNewKey, hideNewKey] = useTimedFlag(NEW_KEY_VISIBLE_MS);
  const { mutate: regenerateKey, isPending: busy } = useRegenerateApiKey();
  const [asking, setAsking] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const visible = shown || newKeyShown;
  const origin = window.location.origin;
  const releases = useAgentReleases();
  const endpoint = formatServiceEndpoint(origin);

  const askToRegenerate = () => {
    setProblem(null);
    setAsking(true);
  };

  const regenerate = (credentials: Credentials) => {
    setProblem(null);
    regenerateKey(credentials, {
      onSuccess: ({ apiKey: fresh }) => {
        setAsking(false);
        updateSessionUser({ apiKey: fresh });
        showNewKey();
        toast({ title: "API key regenerated", description: "The new key is shown for 30 seconds: copy it to set up new agents.", variant: "success" });
      },
      onError: (error) => {
        // A wrong password or code is said in the dialog, to be typed again.
        const status = readErrorStatus(error);
        if (status === 400 || status === 403 || status === 429) {
          setProblem(readErrorMessage(error) ?? "Please check your password and code.");
          return;
        }
        setAsking(false);
        toast({ title: "Failed to regenerate API key. Please try again.", variant: "destructive" });
      },
    });
  };

  const toggleShown = () => {
    if (visible) {
      setShown(false);
      hideNewKey();
    } else setShown(true);
  };

  return (
    <div className="space-y-6">
      <Card className="space-y-6 p-6">
        <div>
          <label htmlFor="security-api-key" className="block text-sm font-medium text-slate-700">
            API key
          </label>
          <p className="text-xs text-slate-500">Agents sign in with this key. Keep it secret.</p>
          <div className="mt-2 flex flex-wrap gap-2">
            <input
              id="security-api-key"
              readOnly
              value={visible ? apiKey : maskApiKey(apiKey)}
              className={`${inputClasses} min-w-0 flex-1 font-mono`}
              spellCheck={false}
              data-masked={visible ? "false" : "true"}
            />
            <Button variant="outline" onClick={toggleShown} aria-pressed={visible}>
              <Icon name={visible ? "eyeOff" : "eye"} className="h-4 w-4" /> {visible ? "Hide" : "Show"}
            </Button>
            <Button variant="outline" aria-label="Copy API key" onClick={() => copyText(apiKey)} disabled={!apiKey}>
              <Icon name="copy" className="h-4 w-4" />
            </Button>
          </div>
          <Button variant="destructive" className="mt-3" onClick={askToRegenerate} disabled={busy}>
            {busy ? "Regenerating..." : "Regenerate API Key"}
          </Button>
          <ReauthenticationDialog
            open={asking}
            title="Regenerate API key"
            message="Your current API key stops working at once: agents must be set up (or set up again with dbvault-agent setup --force) with the new key. Agents already set up keep running on their own credentials."
            confirmLabel="Regenerate API Key"
            twoFactor={user?.twoFactorEnabled ?? false}
            busy={busy}
            problem={problem}
            onCancel={() => setAsking(false)}
            onConfirm={regenerate}
          />
        </div>

        <div>
          <label htmlFor="security-endpoint" className="block text-sm font-medium text-slate-700">
            Service endpoint
          </label>
          <div className="mt-2 flex gap-2">
            <input id="security-endpoint" readOnly value={endpoint} className={`${inputClasses} min-w-0 flex-1 font-mono`} />
            <Button variant="outline" aria-label="Copy service endpoint" onClick={() => copyText(endpoint)}>
              <Icon name="copy" className="h-4 w-4" /> Copy
            </Button>
          </div>
        </div>

        <p className="flex items-start gap-2 text-sm text-slate-600">
          <Icon name="lock" className="mt-0.5 h-4 w-4 shrink-0 text-indigo-600" />
          Encryption keys are generated and kept locally on your agent. DBVault never receives them, so only you can decrypt your backups.
        </p>
      </Card>
      <BackupProtectionCard />
      <AgentSetupGuide ref={setupHeadingRef} origin={origin} releases={releases} />
      <AgentDownloads releases={releases} />
    </div>
  );
}
