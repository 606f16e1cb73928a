import { useEffect, useId, useState } from "react";
import { Alert } from "../../../components/ui/alert";
import { Button } from "../../../components/ui/button";
import { Dialog } from "../../../components/ui/dialog";
import { inputClasses } from "../../../components/ui/field";
import { cn } from "../../../lib/cn";
import { describeTimeZone, formatDateTime, formatDateTimeToSecond } from "../../../lib/format-date";
import { readErrorMessage, readErrorStatus } from "../../../lib/api-client";
import { useDatabases } from "../../../lib/api/get-databases";
import { PointInTimePicker } from "./point-in-time-picker";
import type { RestorePlan } from "../api/pitr-api";
import { useRestoreToMoment, useStartRestore } from "../api/backup-mutations";
import { useRestoreConnections } from "../api/get-restores";
import type { Backup } from "../api/dashboard-api";
import {
  DEFAULT_TARGET,
  defaultCopyName,
  describeDatabaseNameProblem,
  parseCollectionList,
  type RestoreTarget,
  RestoreTargetStep,
} from "./restore-target-step";
import { restorableCollections } from "../utils/dashboard-format";
import { sealIdentity } from "../utils/seal-identity";
import { describeFinalWarning, describeFirstWarning, describeSecondWarning, type RestoreChoice, type RestoreWarning } from "../utils/restore-warnings";

type Props = {
  backup: Backup | null;
  onClose: () => void;
  onRestored: () => void;
  /** Why the restoring agent cannot open this backup (it lacks its key), shown before anything is chosen. */
  keyWarning?: string | null;
  /** Who restores a backup the database's agent cannot open (a restore agent), shown on the first step. */
  readerNote?: string | null;
  /**
   * The database's agent cannot open this backup: the identity field is offered, sealed to this
   * public key of that agent's (a restore with it runs there); "too-old": the agent cannot take one.
   */
  identityRecipient?: string | null;
};

const stepTitle = (step: number, count: number) => `Restore database: step ${step} of ${count}`;

/** What is restored: this backup as it is, or the database at a moment (a base backup and its oplog). */
type RestoreSource = "backup" | "moment";

/**
 * The restore wizard: this backup or a point in time, where to restore (over the original, or as a copy, optionally only some
 * collections), the spec's two warnings, then the exact target name to confirm. A copy into a new
 * database (not one of the account's) replaces nothing: one step to choose, one to confirm, no typing.
 * Another connection an agent knows (issue 44) always asks for the typed name: whether the target
 * exists there only that agent could tell.
 */
export function RestoreDialog({ backup, onClose, onRestored, keyWarning = null, readerNote = null, identityRecipient = null }: Props) {
  const [step, setStep] = useState(1);
  const [typed, setTyped] = useState("");
  const restore = useStartRestore();
  const restoreToMoment = useRestoreToMoment();
  const { reset } = restore;
  const resetMoment = restoreToMoment.reset;
  const busy = restore.isPending || restoreToMoment.isPending;
  const [from, setFrom] = useState<RestoreSource>("backup");
  const [chosen, setChosen] = useState<{ at: string; plan: RestorePlan } | null>(null);
  const accountDatabases = useDatabases().data;
  const connectionAgents = useRestoreConnections(backup?.id ?? null).data?.agents ?? [];
  const database = accountDatabases?.find((entry) => entry.name === backup?.databaseName) ?? null;
  const [error, setError] = useState<string | null>(null);
  const [where, setWhere] = useState<RestoreTarget>(DEFAULT_TARGET);
  // Held in this dialog only: sent with the restore request, dropped when the dialog changes backup.
  const [identity, setIdentity] = useState("");
  const inputId = useId();

  // Every opening starts again at step 1, as a copy.
  useEffect(() => {
    setStep(1);
    setTyped("");
    reset();
    resetMoment();
    setError(null);
    setWhere(DEFAULT_TARGET);
    setFrom("backup");
    setChosen(null);
    setIdentity("");
  }, [backup?.id, reset, resetMoment]);

  const source = backup?.databaseName ?? "";
  const copyName = where.copyName ?? (backup ? defaultCopyName(backup) : "");
  const onConnection = where.mode === "connection" && from === "backup";
  const name = where.mode === "copy" ? copyName.trim() : onConnection ? (where.copyName ?? source).trim() : source;
  const connectionAgent = onConnection ? connectionAgents.find((agent) => agent.id === where.connection?.agentId) : undefined;
  const collections = parseCollectionList(where.collections);
  // The account's databases are the ones known to exist; the server still wants the name, given here.
  const replacesNothing = where.mode === "copy" && accountDatabases !== undefined && !accountDatabases.some((entry) => entry.name === name);
  const stepCount = replacesNothing ? 2 : 4;
  const confirmation = replacesNothing ? name : typed;
  const matches = confirmation === name && name !== "";
  const whereProblem =
    where.mode === "copy" || onConnection ? (describeDatabaseNameProblem(name) ?? (onConnection && !where.connection ? "Choose a connection" : null)) : null;
  const offerIdentity = identityRecipient !== null;
  // The identity is sealed to the database's own agent: another connection's agent could not open it
  // (only agents that hold the backup's key are listed there).
  const pastedIdentity = identityRecipient !== null && identityRecipient !== "too-old" && from === "backup" && !onConnection ? identity.trim() : "";
  const identityProblem = describeIdentityProblem(pastedIdentity);
  const choice: RestoreChoice = {
    mode: where.mode,
    connection: onConnection && where.connection ? { name: where.connection.name, agentName: connectionAgent?.name ?? "" } : null,
    source,
    target: name,
    chosen: collections,
    inBackup: backup?.collections ? restorableCollections(backup.collections).map(([collection]) => collection) : null,
  };
  const finalWarning = describeFinalWarning(choice);
  // The destructive buttons look destructive only when the original is at stake.
  const proceedVariant = where.mode === "copy" ? "default" : "destructive";

  // A restore to a moment runs on the database's own agent: "another connection" does not apply to it.
  const chooseSource = (next: RestoreSource) => {
    setFrom(next);
    if (next === "moment" && where.mode === "connection") setWhere({ ...where, mode: "copy" });
  };

  const submit = async () => {
    if (!backup || !matches) return;
    setError(null);
    // An answer without a message says the restore was refused; no answer at all, something else went wrong.
    const onError = (failure: unknown) =>
      setError(readErrorMessage(failure) ?? (readErrorStatus(failure) === null ? "An unexpected error occurred" : "Failed to initiate restore"));
    if (from === "moment") {
      if (!database || !chosen) return;
      restoreToMoment.mutate(
        {
          databaseId: database.id,
          at: chosen.at,
          confirmation,
          ...(where.mode === "copy" ? { targetDatabase: name } : {}),
          ...(collections.length > 0 ? { collections } : {}),
        },
        { onSuccess: onRestored, onError },
      );
      return;
    }
    // Sealed here to the restoring agent: the server only ever holds what it cannot open.
    let sealedIdentity: string | undefined;
    try {
      sealedIdentity = pastedIdentity && identityRecipient ? await sealIdentity(pastedIdentity, identityRecipient) : undefined;
    } catch {
      setError("The identity could not be sealed for the agent in this browser, so nothing was sent. Reload the page and try again.");
      return;
    }
    restore.mutate(
      {
        backupId: backup.id,
        databaseName: confirmation,
        ...(where.mode === "copy" || onConnection ? { targetDatabase: name } : {}),
        ...(onConnection && where.connection ? { connection: where.connection } : {}),
        ...(collections.length > 0 ? { collections } : {}),
        ...(sealedIdentity ? { sealedIdentity } : {}),
      },
      { onSuccess: onRestored, onError },
    );
  };

  const cancel = (
    <Button variant="outline" onClick={onClose} disabled={busy}>
      Cancel
    </Button>
  );
  const footer =
    step === 1 ? (
      <>
        {cancel}
        <Button onClick={() => setStep(2)} disabled={whereProblem !== null || identityProblem !== null || (from === "moment" && chosen === null)}>
          Next
        </Button>
      </>
    ) : step === 2 && replacesNothing ? (
      <>
        {cancel}
        <Button onClick={() => void submit()} disabled={!matches || busy} autoFocus>
          {busy ? "Processing..." : "Restore as a copy"}
        </Button>
      </>
    ) : step === 2 ? (
      <>
        {cancel}
        <Button variant={proceedVariant} onClick={() => setStep(3)} autoFocus>
          I understand, continue
        </Button>
      </>
    ) : step === 3 ? (
      <>
        {cancel}
        <Button variant={proceedVariant} onClick={() => setStep(4)} autoFocus>
          Continue with restore
        </Button>
      </>
    ) : (
      <>
        {cancel}
        <Button variant={proceedVariant} onClick={() => void submit()} disabled={!matches || busy}>
          {busy ? "Processing..." : "Restore database"}
        </Button>
      </>
    );

  return (
    <Dialog open={backup !== null} onClose={busy ? () => {} : onClose} title={stepTitle(step, stepCount)} footer={footer}>
      {backup ? (
        <div className="mt-3 space-y-3 text-sm text-slate-700" data-testid="restore-dialog" data-step={step}>
          <p className="text-slate-500">
            Backup of <strong className="text-slate-900">{source}</strong> from {formatDateTime(backup.timestamp)}
          </p>
          {step === 1 && keyWarning ? (
            <Alert tone="warning" title="This agent lacks the backup's key">
              <span data-testid="restore-key-warning">{keyWarning}</span>
            </Alert>
          ) : null}
          {step === 1 && readerNote ? (
            <Alert tone="info" title="A restore agent restores this backup">
              <span data-testid="restore-reader-note">{readerNote}</span>
            </Alert>
          ) : null}
          {step === 1 && offerIdentity && from === "backup" && !onConnection ? (
            <IdentityField value={identity} onChange={setIdentity} problem={identityProblem} tooOld={identityRecipient === "too-old"} />
          ) : null}
          {step === 1 && backup.excludedCollections.length > 0 ? (
            <Alert tone="info" title="Not in this backup">
              <span data-testid="restore-excluded-note">
                {backup.excludedCollections.join(", ")} {backup.excludedCollections.length === 1 ? "was" : "were"} excluded from this database's backups: this
                restore does not bring {backup.excludedCollections.length === 1 ? "it" : "them"} back.
              </span>
            </Alert>
          ) : null}
          {step === 1 && database?.pitrEnabled ? <SourceChoice from={from} onChange={chooseSource} backupTime={formatDateTime(backup.timestamp)} /> : null}
          {step === 1 && from === "moment" && database ? <PointInTimePicker databaseId={database.id} onChange={setChosen} /> : null}
          {step > 1 && from === "moment" && chosen ? (
            <p data-testid="restore-moment-summary">
              To <strong className="text-slate-900">{formatDateTimeToSecond(chosen.at)}</strong> ({describeTimeZone(new Date(chosen.at))}): the backup
              consistent at {formatDateTimeToSecond(chosen.plan.base.consistentAt.at)} + {chosen.plan.slices.count} oplog slice
              {chosen.plan.slices.count === 1 ? "" : "s"}
            </p>
          ) : null}
          {step === 1 ? (
            <RestoreTargetStep
              inventory={backup.collections}
              source={source}
              copyName={where.mode === "connection" ? (where.copyName ?? source) : copyName}
              where={where}
              onChange={setWhere}
              problem={whereProblem}
              moment={from === "moment" ? { baseCollections: chosen?.plan.baseCollections ?? null } : null}
              // A restore to a moment runs on the database's own agent: another connection is for a backup as it is.
              connections={from === "backup" ? connectionAgents : []}
            />
          ) : null}
          {step === 2 ? <WarningStep warning={describeFirstWarning(choice)} /> : null}
          {step === 2 && replacesNothing && error ? <Alert>{error}</Alert> : null}
          {step === 3 ? <WarningStep warning={describeSecondWarning(choice)} /> : null}
          {step === 4 ? (
            <>
              <Alert tone={finalWarning.tone} title={finalWarning.title}>
                {finalWarning.text}
              </Alert>
              <div>
                <label htmlFor={inputId} className="block font-medium text-slate-900">
                  Type <code className="rounded bg-slate-100 px-1">{name}</code> to confirm
                </label>
                <input
                  id={inputId}
                  value={typed}
                  onChange={(event) => setTyped(event.target.value)}
                  onKeyDown={(event) => {
                    if (event.key === "Enter") void submit();
                  }}
                  autoComplete="off"
                  spellCheck={false}
                  autoFocus
                  aria-invalid={typed !== "" && !matches ? true : undefined}
                  aria-describedby={`${inputId}-hint`}
                  className={cn(inputClasses, "mt-1 font-mono")}
                />
                <p id={`${inputId}-hint`} className={cn("mt-1 text-xs", typed !== "" && !matches ? "text-red-600" : "text-slate-500")}>
                  Please type '{name}' to confirm
                </p>
              </div>
              {error ? <Alert>{error}</Alert> : null}
            </>
          ) : null}
        </div>
      ) : null}
    </Dialog>
  );
}

/** An identity's text form: `dbvid1_` and 48 base64url characters (protocol's IDENTITY_TEXT_PATTERN). */
const IDENTITY_TEXT = /^dbvid1_[A-Za-z0-9_-]{48}$/;

/** What is wrong with a pasted identity (never repeating it), or null when it is empty or well formed. */
export function describeIdentityProblem(text: string): string | null {
  if (text === "" || IDENTITY_TEXT.test(text)) return null;
  return "This is not an identity: paste the whole dbvid1_ line of the identity file that key mode write-only saved.";
}

/**
 * The identity of the write-only agent that sealed the backup, for a restore by that agent. It is
 * sealed in this browser to that agent's key and goes to it only; nothing keeps it. An agent too
 * old to say its key cannot take one: the field says so instead.
 */
function IdentityField({ value, onChange, problem, tooOld }: { value: string; onChange: (value: string) => void; problem: string | null; tooOld: boolean }) {
  const id = useId();
  if (tooOld) {
    return (
      <p className="text-sm text-slate-600" data-testid="restore-identity-too-old">
        This database's agent is too old to take a pasted identity. Update it (dbvault-agent update) to restore with it, or set up a restore agent where the
        identity is kept (dbvault-agent setup --role restore --identity FILE).
      </p>
    );
  }
  return (
    <div>
      <label htmlFor={id} className="block font-medium text-slate-900">
        Identity (optional)
      </label>
      <input
        id={id}
        type="password"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        autoComplete="off"
        spellCheck={false}
        placeholder="dbvid1_…"
        data-testid="restore-identity"
        aria-invalid={problem ? true : undefined}
        aria-describedby={`${id}-hint`}
        className={cn(inputClasses, "mt-1 font-mono")}
      />
      <p id={`${id}-hint`} className={cn("mt-1 text-xs", problem ? "text-red-600" : "text-slate-500")} data-testid="restore-identity-hint">
        {problem ??
          "Paste the identity that opens this backup to restore with the database's own agent. This browser seals it to that agent's key before sending it: DBVault's server never sees it and never stores it."}
      </p>
    </div>
  );
}

/** One warning step: the boxed warning, then its list. */
function WarningStep({ warning }: { warning: RestoreWarning }) {
  return (
    <>
      <Alert tone={warning.tone} title={warning.title}>
        {warning.text}
      </Alert>
      <p className="font-medium text-slate-900">{warning.listTitle}</p>
      <ul className="list-disc space-y-1 pl-5">
        {warning.list.map((item) => (
          <li key={item}>{item}</li>
        ))}
      </ul>
    </>
  );
}

/** This backup as it is, or the database at a moment; offered when point-in-time recovery is on. */
function SourceChoice({ from, onChange, backupTime }: { from: RestoreSource; onChange: (from: RestoreSource) => void; backupTime: string }) {
  const name = useId();
  const options: [RestoreSource, string][] = [
    ["backup", `This backup (${backupTime})`],
    ["moment", "A point in time"],
  ];
  return (
    <fieldset>
      <legend className="font-medium text-slate-900">Restore from</legend>
      <div className="mt-1 flex flex-wrap gap-4">
        {options.map(([value, label]) => (
          <label key={value} className="flex items-center gap-2">
            <input type="radio" name={name} value={value} checked={from === value} onChange={() => onChange(value)} />
            {label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
