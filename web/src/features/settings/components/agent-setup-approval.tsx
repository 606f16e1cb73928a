import { type FormEvent, useState } from "react";
import { type Credentials, ReauthenticationDialog } from "../../../components/auth/reauthentication-dialog";
import { Alert } from "../../../components/ui/alert";
import { Button } from "../../../components/ui/button";
import { Field } from "../../../components/ui/field";
import { readErrorMessage, readErrorStatus } from "../../../lib/api-client";
import { useSession } from "../../../lib/auth/use-session";
import type { UserAgent } from "../api/settings-api";
import { useApproveSetupCode } from "../api/settings-mutations";

type Props = { agent: UserAgent; onClose: () => void };

/**
 * `dbvault-agent setup --force` on a machine without the agent's credentials prints a one-time
 * code; approving it here (password confirmed, as the server asks) lets that machine take the agent.
 */
export function AgentSetupApproval({ agent, onClose }: Props) {
  const { user } = useSession();
  const [setupCode, setSetupCode] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [asking, setAsking] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [approved, setApproved] = useState<string | null>(null);
  const approve = useApproveSetupCode();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!setupCode.trim()) return setError("Enter the code dbvault-agent setup --force showed on the agent's machine.");
    setError(null);
    setProblem(null);
    setAsking(true);
  };

  const confirm = (credentials: Credentials) => {
    setProblem(null);
    approve.mutate(
      { agentId: agent.id, setupCode: setupCode.trim(), credentials },
      {
        onSuccess: (answer) => {
          setAsking(false);
          setApproved(answer.message);
        },
        onError: (failure) => {
          const message = readErrorMessage(failure) ?? "The set-up code could not be approved. Please try again.";
          const status = readErrorStatus(failure);
          // A wrong password or code is typed again in the dialog; a wrong set-up code in the form.
          if ((status === 403 || status === 429 || status === 400) && !/set-up code/i.test(message)) setProblem(message);
          else {
            setAsking(false);
            setError(message);
          }
        },
      },
    );
  };

  if (approved) {
    return (
      <div className="mt-3 space-y-2">
        <Alert tone="success">{approved}</Alert>
        <Button variant="outline" size="sm" onClick={onClose}>
          Done
        </Button>
      </div>
    );
  }
  return (
    <>
      <form onSubmit={submit} noValidate className="mt-3 flex flex-wrap items-end gap-2" aria-label={`Approve a set-up code for ${agent.name}`}>
        <Field
          label="Set-up code the agent printed"
          value={setupCode}
          onChange={(event) => setSetupCode(event.target.value)}
          error={error}
          maxLength={32}
          placeholder="ABCDE-FGHJK"
          autoFocus
          className="min-w-0 flex-1"
        />
        <Button type="submit" disabled={approve.isPending}>
          Approve
        </Button>
        <Button type="button" variant="outline" onClick={onClose}>
          Cancel
        </Button>
      </form>
      <ReauthenticationDialog
        open={asking}
        title={`Approve set-up of ${agent.name}`}
        message="The machine that shows this code gets this agent's new credentials and its databases. Approve only a code you saw on your own server."
        confirmLabel="Approve"
        twoFactor={user?.twoFactorEnabled ?? false}
        busy={approve.isPending}
        problem={problem}
        onCancel={() => setAsking(false)}
        onConfirm={confirm}
      />
    </>
  );
}
