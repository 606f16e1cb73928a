import { type FormEvent, useState } from "react";
import { Button } from "../../../components/ui/button";
import { Field } from "../../../components/ui/field";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import { renameAgentRequest, type UserAgent } from "../api/settings-api";

type Props = { agent: UserAgent; onRenamed: (agent: UserAgent) => void; onCancel: () => void };

/** Renames an agent in place (Settings → Agents), so two machines with look-alike host names can be told apart. */
export function AgentRenameForm({ agent, onRenamed, onCancel }: Props) {
  const [name, setName] = useState(agent.name);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const wanted = name.trim();
    if (!wanted || wanted.length > 100) return setError("Give the agent a name of 1 to 100 characters.");
    setBusy(true);
    try {
      const { data, error: failure } = await renameAgentRequest(agent.id, wanted);
      if (failure || !data) throw failure ?? new Error("rename failed");
      toast({ title: `The agent is now called "${data.name}"`, variant: "success" });
      onRenamed(data);
    } catch (failure) {
      setError(readErrorMessage(failure) ?? "The agent could not be renamed. Please try again.");
    } finally {
      setBusy(false);
    }
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
