// The restore wizard's first step: over the original database, or as a copy under another name
// (default <name>_restored_<backup date>), and optionally only some collections: ticked from the
// backup's list when the agent reported one, else typed (the agent checks the names against the
// backup before it changes anything). Restoring to a moment, the names are typed: collections
// created after the base backup exist then too, and only the agent, replaying to the moment,
// knows them (it checks the names there, before it changes anything). A backup can also go to
// another connection an agent knows (`dbvault-agent db add`), listed by name only: the agent alone
// holds its connection string.
import { useId } from "react";
import { Field, inputClasses } from "../../../components/ui/field";
import { cn } from "../../../lib/cn";
import type { Backup, RestoreConnectionAgent } from "../api/dashboard-api";
import { restorableCollections } from "../utils/dashboard-format";

export type RestoreTarget = {
  mode: "replace" | "copy" | "connection";
  /** The copy's (or the other connection's target database's) name as typed; null until the user edits the default. */
  copyName: string | null;
  /** With mode "connection": the agent and the name of its connection chosen; null until chosen. */
  connection: { agentId: string; name: string } | null;
  /** Comma-separated collection names as typed; empty means all. */
  collections: string;
};

/** A copy by default: the choice that changes nothing of the original. */
export const DEFAULT_TARGET: RestoreTarget = { mode: "copy", copyName: null, connection: null, collections: "" };

/** `<name>_restored_<YYYY-MM-DD of the backup>`. */
export function defaultCopyName(backup: Backup): string {
  const date = new Date(backup.timestamp);
  const day = Number.isNaN(date.getTime()) ? new Date() : date;
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${backup.databaseName}_restored_${day.getFullYear()}-${pad(day.getMonth() + 1)}-${pad(day.getDate())}`;
}

export function parseCollectionList(text: string): string[] {
  return [
    ...new Set(
      text
        .split(",")
        .map((name) => name.trim())
        .filter(Boolean),
    ),
  ];
}

// MongoDB's own rules for database names, checked here so the user hears it before confirming.
export function describeDatabaseNameProblem(name: string): string | null {
  if (name === "") return "Enter a database name";
  if (name.length > 63) return "A database name has at most 63 characters";
  if (/[/\\. "$*<>:|?]/.test(name)) return 'A database name cannot contain / \\ . " $ * < > : | ? or spaces';
  return null;
}

type Props = {
  /** Documents per "db.collection" in the backup, when known. */
  inventory: Record<string, number> | null;
  source: string;
  copyName: string;
  where: RestoreTarget;
  onChange: (next: RestoreTarget) => void;
  problem: string | null;
  /** Restoring to a moment: the collections its base backup holds (null: not known), offered as examples. */
  moment?: { baseCollections: string[] | null } | null;
  /** The agents that can open the backup with their connections; the option shows when one has any. */
  connections?: RestoreConnectionAgent[];
};

export function RestoreTargetStep({ inventory, source, copyName, where, onChange, problem, moment = null, connections = [] }: Props) {
  const option = (mode: RestoreTarget["mode"], title: string, text: string) => (
    <label className="flex cursor-pointer gap-3 rounded-md border border-slate-200 p-3 has-[:checked]:border-indigo-500 has-[:checked]:bg-indigo-50">
      <input type="radio" name="restore-mode" value={mode} checked={where.mode === mode} onChange={() => onChange({ ...where, mode })} className="mt-1" />
      <span>
        <span className="block font-medium text-slate-900">{title}</span>
        <span className="block text-slate-600">{text}</span>
      </span>
    </label>
  );
  return (
    <fieldset className="space-y-3">
      <legend className="font-medium text-slate-900">Where should the backup go?</legend>
      {option("copy", "Restore as a copy", `Restore into another database on the same server; ${source} is not touched.`)}
      {option("replace", "Replace the original", `Restore over ${source}: the backup's collections replace those in ${source}.`)}
      {connections.length > 0
        ? option("connection", "Restore to another connection", "Into a database on another server one of your agents connects to (dbvault-agent db add).")
        : null}
      {where.mode === "connection" ? (
        <ConnectionChoice agents={connections} chosen={where.connection} onChange={(connection) => onChange({ ...where, connection })} />
      ) : null}
      {where.mode === "copy" || where.mode === "connection" ? (
        <Field
          label="Target database"
          value={copyName}
          onChange={(event) => onChange({ ...where, copyName: event.target.value })}
          error={problem}
          autoComplete="off"
          spellCheck={false}
          inputClassName="font-mono"
        />
      ) : null}
      {moment ? (
        <Field
          label="Only these collections (optional)"
          placeholder={moment.baseCollections?.slice(0, 3).join(", ") || "orders, customers"}
          value={where.collections}
          onChange={(event) => onChange({ ...where, collections: event.target.value })}
          hint={`Comma-separated. Leave empty to restore every collection.${moment.baseCollections ? ` The backup this restore starts from holds ${moment.baseCollections.length}; collections created after it can be named too.` : ""} A name that does not exist at that moment stops the restore before anything changes.`}
          autoComplete="off"
          spellCheck={false}
        />
      ) : inventory ? (
        <CollectionChoice
          inventory={inventory}
          chosen={parseCollectionList(where.collections)}
          onChange={(names) => onChange({ ...where, collections: names.join(", ") })}
        />
      ) : (
        <Field
          label="Only these collections (optional)"
          placeholder="orders, customers"
          value={where.collections}
          onChange={(event) => onChange({ ...where, collections: event.target.value })}
          hint="Comma-separated. Leave empty to restore every collection. A name the backup does not have stops the restore before anything changes."
          autoComplete="off"
          spellCheck={false}
        />
      )}
    </fieldset>
  );
}

function CollectionChoice({ inventory, chosen, onChange }: { inventory: Record<string, number>; chosen: string[]; onChange: (names: string[]) => void }) {
  // Names without the database: the restore's target may be another database.
  const entries = restorableCollections(inventory);
  const toggle = (name: string) => onChange(chosen.includes(name) ? chosen.filter((entry) => entry !== name) : [...chosen, name]);
  return (
    <fieldset>
      <legend className="text-sm font-medium text-slate-700">Only these collections (optional)</legend>
      <p className="text-xs text-slate-500">None ticked: every collection is restored.</p>
      <ul className="mt-1 max-h-48 overflow-y-auto rounded-md border border-slate-200">
        {entries.map(([name, count]) => (
          <li key={name}>
            <label className="flex items-center gap-2 px-3 py-1.5 hover:bg-slate-50">
              <input type="checkbox" checked={chosen.includes(name)} onChange={() => toggle(name)} />
              <span className="font-mono text-slate-900">{name}</span>
              <span className="ml-auto text-xs text-slate-500">{count.toLocaleString("en-US")} documents</span>
            </label>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}

const choiceValue = (agentId: string, name: string) => JSON.stringify([agentId, name]);

/** The agents' connections by name, grouped by agent: the server holds no connection string to show. */
function ConnectionChoice({
  agents,
  chosen,
  onChange,
}: {
  agents: RestoreConnectionAgent[];
  chosen: RestoreTarget["connection"];
  onChange: (next: RestoreTarget["connection"]) => void;
}) {
  const id = useId();
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">
        Connection
      </label>
      <select
        id={id}
        data-testid="restore-connection"
        className={cn(inputClasses, "mt-1")}
        value={chosen ? choiceValue(chosen.agentId, chosen.name) : ""}
        onChange={(event) => {
          const [agentId, name] = event.target.value ? (JSON.parse(event.target.value) as [string, string]) : [];
          onChange(agentId && name ? { agentId, name } : null);
        }}
      >
        <option value="">Choose a connection</option>
        {agents.map((agent) => (
          <optgroup key={agent.id} label={`Agent ${agent.name}`}>
            {agent.connections.map((name) => (
              <option key={name} value={choiceValue(agent.id, name)}>
                {name} (on {agent.name})
              </option>
            ))}
          </optgroup>
        ))}
      </select>
      <p className="mt-1 text-xs text-slate-600">
        The agent restores there with its own connection string, which DBVault's server never sees. You are asked to type the target's name: the server cannot
        tell whether it already exists there.
      </p>
    </div>
  );
}
