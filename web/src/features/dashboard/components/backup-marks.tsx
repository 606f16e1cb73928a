// Keep forever and the label of one backup, on its row: everyone sees the label and the "Kept
// forever" badge; operators and above get the switch and the label editor (the server checks too).
import { type FormEvent, type ReactNode, useId, useState } from "react";
import { Button } from "../../../components/ui/button";
import { inputClasses } from "../../../components/ui/field";
import { Icon } from "../../../components/ui/icons";
import { Switch } from "../../../components/ui/switch";
import { readErrorMessage } from "../../../lib/api-client";
import { formatDateTime } from "../../../lib/format-date";
import type { Backup } from "../api/dashboard-api";
import { useSetBackupKept, useSetBackupLabel } from "../api/backup-mutations";

/** The most characters a label takes; the server says the same (db/schema BACKUP_LABEL_MAX_LENGTH). */
const LABEL_MAX_LENGTH = 100;

function LabelEditor({ backup, onDone }: { backup: Backup; onDone: () => void }) {
  const [value, setValue] = useState(backup.label ?? "");
  const setLabel = useSetBackupLabel();
  const id = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setLabel.mutate({ backupId: backup.id, label: value.trim() === "" ? null : value }, { onSuccess: onDone });
  };
  const error = setLabel.error ? (readErrorMessage(setLabel.error) ?? "The label could not be saved. Try again.") : null;
  return (
    <form onSubmit={submit} className="mt-1 flex w-full max-w-xs flex-col gap-1" data-testid="backup-label-editor">
      <label htmlFor={id} className="text-xs font-medium text-slate-700">
        Label
      </label>
      <input
        id={id}
        className={inputClasses}
        value={value}
        maxLength={LABEL_MAX_LENGTH}
        placeholder="before migration 42"
        onChange={(event) => setValue(event.target.value)}
        aria-invalid={error ? true : undefined}
        // biome-ignore lint/a11y/noAutofocus: the editor opens on the user's click, to type at once.
        autoFocus
      />
      {error ? (
        <p role="alert" className="text-xs text-red-700">
          {error}
        </p>
      ) : null}
      <div className="flex gap-1">
        <Button type="submit" size="sm" disabled={setLabel.isPending}>
          Save label
        </Button>
        <Button type="button" size="sm" variant="ghost" onClick={onDone}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

function KeepSwitch({ backup }: { backup: Backup }) {
  const setKept = useSetBackupKept();
  const error = setKept.error ? (readErrorMessage(setKept.error) ?? "Keep forever could not be changed. Try again.") : null;
  return (
    <div className="flex flex-col gap-1">
      <span className="flex items-center gap-2 text-xs text-slate-700">
        <Switch
          checked={backup.kept}
          disabled={setKept.isPending}
          label={`Keep forever: ${backup.databaseName} backup of ${formatDateTime(backup.createdAt)}`}
          onCheckedChange={(kept) => setKept.mutate({ backupId: backup.id, kept })}
        />
        Keep forever
      </span>
      {error ? (
        <p role="alert" className="max-w-xs text-xs text-red-700">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** Name, label and kept badge of a backup, with the controls for who may change them. */
/** The backup's database (`name`, a link to its details where given), its label and its kept mark. */
export function BackupMarks({ backup, canChange, name }: { backup: Backup; canChange: boolean; name?: ReactNode }) {
  const [editing, setEditing] = useState(false);
  return (
    <div className="flex min-w-0 flex-col items-start gap-1">
      {name ?? <span className="font-medium text-slate-900">{backup.databaseName}</span>}
      {backup.label ? (
        <span className="max-w-xs break-words text-xs text-slate-700" data-testid="backup-label">
          <Icon name="tag" className="mr-1 inline h-3 w-3" aria-hidden="true" />
          {backup.label}
        </span>
      ) : null}
      {backup.kept ? (
        <span
          className="rounded bg-indigo-50 px-1.5 py-0.5 text-xs font-medium text-indigo-800"
          title={backup.keptBy ? `Kept forever by ${backup.keptBy}${backup.keptAt ? ` on ${formatDateTime(backup.keptAt)}` : ""}` : undefined}
          data-testid="backup-kept"
        >
          Kept forever
        </span>
      ) : null}
      {canChange ? (
        <div className="flex flex-col items-start gap-1">
          {backup.status === "completed" || backup.kept ? <KeepSwitch backup={backup} /> : null}
          {editing ? (
            <LabelEditor backup={backup} onDone={() => setEditing(false)} />
          ) : (
            <Button
              variant="ghost"
              size="sm"
              onClick={() => setEditing(true)}
              aria-label={`${backup.label ? "Edit label of" : "Add a label to"} ${backup.databaseName} backup of ${formatDateTime(backup.createdAt)}`}
            >
              {backup.label ? "Edit label" : "Add label"}
            </Button>
          )}
        </div>
      ) : null}
    </div>
  );
}
