// What each step of the restore wizard warns of, for the choice made: a copy changes nothing of
// the original; a restore over the original replaces the collections the backup holds (or those
// chosen) and leaves the database's other collections as they are, which is what the agent does.

export type RestoreChoice = {
  mode: "replace" | "copy" | "connection";
  /** With mode "connection": the connection's name and its agent's, as the wizard lists them. */
  connection?: { name: string; agentName: string } | null;
  /** The backed-up database. */
  source: string;
  /** Where the backup goes: the source itself, or the copy's name. */
  target: string;
  /** The collections chosen; empty: all the backup holds. */
  chosen: string[];
  /** The collections the backup holds, when the agent reported them. */
  inBackup: string[] | null;
};

export type RestoreWarning = { tone: "warning" | "error" | "info"; title: string; text: string; listTitle: string; list: string[] };

const listed = (names: string[]) => names.join(", ");

/** The collections replaced in the target: those chosen, else all the backup holds ("" when not known). */
function replacedCollections(choice: RestoreChoice): string {
  if (choice.chosen.length > 0) return `the collections ${listed(choice.chosen)}`;
  if (choice.inBackup && choice.inBackup.length > 0) return `the collections this backup holds (${listed(choice.inBackup)})`;
  return "the collections this backup holds";
}

/** Where a restore into another connection writes, in words. */
const placeOf = (choice: RestoreChoice) =>
  choice.connection ? `${choice.target} on the connection ${choice.connection.name} (agent ${choice.connection.agentName})` : choice.target;

/** Step 2: what happens, and what to do before. */
export function describeFirstWarning(choice: RestoreChoice): RestoreWarning {
  if (choice.mode === "connection") {
    return {
      tone: "warning",
      title: `Restoring on another connection`,
      text: `The backup is restored into ${placeOf(choice)}, on whatever MongoDB server that connection reaches; nothing else is written. If ${choice.target} already exists there, ${replacedCollections(choice)} are replaced; its other collections are left as they are.`,
      listTitle: "Before you continue:",
      list: [
        `Make sure ${choice.target} on that server is the database you mean: DBVault cannot see whether it exists.`,
        "Make sure that server has room for the backup.",
      ],
    };
  }
  if (choice.mode === "copy") {
    return {
      tone: "info",
      title: `${choice.source} is not changed`,
      text: `The backup is restored into ${choice.target}, a separate database on the same MongoDB server. Nothing in ${choice.source} is changed or removed. If ${choice.target} already exists, ${replacedCollections(choice)} are replaced there; its other collections are left as they are.`,
      listTitle: "Before you continue:",
      list: [
        `Make sure the MongoDB server has room for another copy of ${choice.source}.`,
        `Point your application at ${choice.target} only if you mean to switch to it.`,
      ],
    };
  }
  return {
    tone: "warning",
    title: "This restore cannot be reversed",
    text: `Restoring replaces ${replacedCollections(choice)} in ${choice.target} with their contents in this backup. Collections of ${choice.target} that are not in the backup${choice.chosen.length > 0 ? " or not chosen" : ""} are left as they are.`,
    listTitle: "Before you continue:",
    list: [
      "Make sure you have a current backup of the database.",
      "Consider restoring as a copy first, to check the backup.",
      "Warn your users: the database may be unavailable while it is restored.",
    ],
  };
}

/** Step 3: what is replaced and what is lost. */
export function describeSecondWarning(choice: RestoreChoice): RestoreWarning {
  if (choice.mode === "copy" || choice.mode === "connection") {
    return {
      tone: "info",
      title: `Restoring into ${choice.mode === "connection" ? placeOf(choice) : choice.target}`,
      text: `${choice.target} receives ${replacedCollections(choice)} as they were at the backup. The whole backup is checked first and each collection is swapped in only when all were restored, so a failure changes nothing.`,
      listTitle: `Nothing of ${choice.source} is lost. In ${choice.target}, if it already exists:`,
      list: ["Documents in the collections restored are replaced by the backup's.", "Its other collections are left as they are."],
    };
  }
  return {
    tone: "error",
    title: `${choice.chosen.length > 0 ? "The chosen collections" : "The backup's collections"} will be dropped and replaced`,
    text: `In ${choice.target}, ${replacedCollections(choice)} are replaced by the backup's; its other collections are left as they are. The whole backup is checked first and each collection is swapped in only when all were restored, so a failure changes nothing.`,
    listTitle: "In those collections, you will lose:",
    list: ["Documents changed or added after the backup was taken.", "Indexes created after the backup.", "Configuration changes made after the backup."],
  };
}

/** Step 4's warning above the typed confirmation. */
export function describeFinalWarning(choice: RestoreChoice): { tone: "error" | "info"; title: string; text: string } {
  if (choice.mode === "copy") return { tone: "info", title: "Confirm the copy", text: `${choice.source} stays as it is; only ${choice.target} is written.` };
  if (choice.mode === "connection") {
    return { tone: "error", title: "Confirm the target", text: `Only ${placeOf(choice)} is written; what the backup restores there cannot be undone.` };
  }
  return { tone: "error", title: "Final warning", text: "This cannot be undone." };
}
