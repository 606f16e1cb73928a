import { type FormEvent, useState } from "react";
import { Button } from "../../../components/ui/button";
import { Field } from "../../../components/ui/field";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import type { UserAgent } from "../api/settings-api";
import { useRenameAgent } from "../api/settings-mutations";

type Props = { agent: UserAgent; onRenamed: () => void; onCancel: () => void };

/** Renames an agent in place (Settings → Agents), so two machines with look-alike host names can be told apart. */
export function AgentRenameForm({ agent, onRenamed, onCancel }: Props) {
  const [name, setName] = useState(agent.name);
  const [error, setError] = useState<string | null>(null);
  const { mutate: rename, isPending: busy } = useRenameAgent();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const wanted = name.trim();
    if (!wanted || wanted.length > 100) return setError("Give the agent a name of 1 to 100 characters.");
    rename(
      { agentId: agent.id, name: wanted },
      {
        onSuccess: (renamed) => {
          toast({ title: `The agent is now called "${renamed.name}"`, variant: "success" });
          onRenamed();
        },
        onError: (failure) => setError(readErrorMessage(failure) ?? "The agent could not be renamed. Please try again."),
      },
    );
  };

  return (
    <form onSubmit={submit} className="flex flex-wrap items-end gap-2" aria-label={`Rename ${agent.name}`}>
      <Field
        label="Agent name"
        value={name}
        onChange={(event) => setName(event.target.value)}
        error={error}
        maxLength={100}
        autoFocus
        className="min-w-0 flex-1"
      />
      <Button type="submit" disabled={busy}>
        {busy ? "Saving..." : "Save"}
      </Button>
      <Button type="button" variant="outline" onClick={onCancel} disabled={busy}>
        Cancel
      </Button>
    </form>
  );
}
