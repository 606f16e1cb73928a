import { useId } from "react";
import { Link } from "wouter";
import { Button, buttonClasses } from "../../../components/ui/button";
import { Icon } from "../../../components/ui/icons";
import { Spinner } from "../../../components/ui/spinner";
import type { DatabaseEntry } from "../api/dashboard-api";
import { Select } from "../../../components/ui/select";

type Props = {
  databases: DatabaseEntry[] | null;
  selected: string;
  onSelect: (name: string) => void;
  onTrigger: () => void;
  busy: boolean;
  /** Why a backup cannot be triggered now (shown under the button), or null. */
  blockedReason: string | null;
  /** False for a viewer: no Trigger Backup. */
  canTrigger: boolean;
};

/** The dashboard header: database selector (inactive ones disabled), Trigger Backup, Settings. */
export function DashboardHeader({ databases, selected, onSelect, onTrigger, busy, blockedReason, canTrigger }: Props) {
  const selectId = useId();
  const reasonId = useId();
  const list = databases ?? [];
  return (
    <div className="flex flex-wrap items-end justify-between gap-4">
      <div>
        <h1 className="text-3xl font-bold tracking-tight text-slate-900">Dashboard</h1>
        <p className="mt-1 text-slate-600">Your backups, restores and agents at a glance.</p>
      </div>
      <div className="flex flex-wrap items-end gap-3">
        <div>
          <label htmlFor={selectId} className="block text-xs font-medium text-slate-600">
            Database
          </label>
          <Select id={selectId} value={selected} onChange={(event) => onSelect(event.target.value)} className="mt-1 min-w-48">
            {selected === "" ? (
              <option value="" disabled>
                {databases === null ? "Loading..." : list.length === 0 ? "No databases yet" : "Choose a database"}
              </option>
            ) : null}
            {list.map((db) => (
              <option key={db.id} value={db.name} disabled={!db.isActive}>
                {db.isActive ? db.name : `${db.name} (inactive)`}
              </option>
            ))}
          </Select>
        </div>
        {canTrigger ? (
          <div>
            <Button onClick={onTrigger} disabled={busy || blockedReason !== null || selected === ""} aria-describedby={blockedReason ? reasonId : undefined}>
              {busy ? <Spinner /> : <Icon name="play" className="h-4 w-4" />}
              {busy ? "Backing up..." : "Trigger Backup"}
            </Button>
          </div>
        ) : null}
        <Link href="/settings" className={buttonClasses({ variant: "outline" })}>
          <Icon name="settings" className="h-4 w-4" /> Settings
        </Link>
        {blockedReason && canTrigger ? (
          <p id={reasonId} className="basis-full text-right text-sm text-slate-600" data-testid="trigger-blocked">
            {blockedReason}
          </p>
        ) : null}
      </div>
    </div>
  );
}
