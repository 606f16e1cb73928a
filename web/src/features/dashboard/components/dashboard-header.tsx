import { useId } from "react";
import { Link } from "wouter";
import { Button, buttonClasses } from "../../../components/ui/button";
import { inputClasses } from "../../../components/ui/field";
import { Icon } from "../../../components/ui/icons";
import { Spinner } from "../../../components/ui/spinner";
import { cn } from "../../../lib/cn";
import type { DatabaseEntry } from "../api/dashboard-api";

type Props = {
  databases: DatabaseEntry[] | null;
  selected: string;
  onSelect: (name: string) => void;
  onTrigger: () => void;
  busy: boolean;
};

/** The dashboard header: database selector (inactive ones disabled), Trigger Backup, Settings. */
export function DashboardHeader({ databases, selected, onSelect, onTrigger, busy }: Props) {
  const selectId = useId();
  const list = databases ?? [];
  // The selection may be the default name before (or without) a matching database.
  const showSelected = !list.some((db) => db.name === selected);
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
          <select id={selectId} value={selected} onChange={(event) => onSelect(event.target.value)} className={cn(inputClasses, "mt-1 min-w-48")}>
            {showSelected ? <option value={selected}>{selected}</option> : null}
            {list.map((db) => (
              <option key={db.id} value={db.name} disabled={!db.isActive}>
                {db.isActive ? db.name : `${db.name} (inactive)`}
              </option>
            ))}
          </select>
        </div>
        <Button onClick={onTrigger} disabled={busy}>
          {busy ? <Spinner /> : <Icon name="play" className="h-4 w-4" />}
          {busy ? "Backing up..." : "Trigger Backup"}
        </Button>
        <Link href="/settings" className={buttonClasses({ variant: "outline" })}>
          <Icon name="settings" className="h-4 w-4" /> Settings
        </Link>
      </div>
    </div>
  );
}
