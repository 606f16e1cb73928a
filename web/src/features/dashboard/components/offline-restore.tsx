// The wizard's "Download for an offline restore" (issue 47 §5): the zip of the slices from the
// chosen plan's base to its moment, and the exact commands that restore them with the key alone,
// for when the agent cannot run the restore (or the service is not there).
import { useState } from "react";
import { Button } from "../../../components/ui/button";
import { CommandLine } from "../../../components/ui/command-line";
import { toast } from "../../../components/ui/toast-store";
import { readBytes, saveFile } from "../../../lib/browser-download";
import { type RestorePlan, sliceArchiveRequest } from "../api/pitr-api";
import { baseFileName, offlineRestoreCommands, slicesFileName, slicesRange } from "../utils/offline-restore";

export function OfflineRestore({ databaseId, plan }: { databaseId: string; plan: RestorePlan }) {
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    try {
      const { from, to } = slicesRange(plan);
      const { data, error } = await sliceArchiveRequest(databaseId, from, to);
      if (error) throw new Error("download failed");
      saveFile([await readBytes(data)], slicesFileName(plan), "application/zip");
    } catch {
      toast({ title: "Failed to download the oplog slices", variant: "destructive" });
    } finally {
      setBusy(false);
    }
  };
  return (
    <details className="rounded-md border border-slate-200 p-3" data-testid="pitr-offline">
      <summary className="cursor-pointer font-medium text-slate-900">Download for an offline restore</summary>
      <div className="mt-2 space-y-2 text-sm text-slate-600">
        <p>
          1. Download the backup <span className="font-mono">{baseFileName(plan)}</span> from the backups table.
        </p>
        <p className="flex items-center gap-2">
          2.{" "}
          <Button variant="outline" size="sm" onClick={download} disabled={busy}>
            {busy ? "Downloading..." : "Download the oplog slices"}
          </Button>
          <span className="font-mono">{slicesFileName(plan)}</span>
        </p>
        <p>3. In the folder holding both, with the key in the agent's config, run:</p>
        {offlineRestoreCommands(plan)
          .split("\n")
          .map((command) => (
            <CommandLine key={command} command={command} />
          ))}
      </div>
    </details>
  );
}
