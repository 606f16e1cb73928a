// What the wizard's "Download for an offline restore" says: the two files to fetch (the base
// backup, saved under the name the backups table gives it, and the zip of the slices from the
// base to the moment) and the exact commands that restore them with the key alone. Pure.

type Plan = {
  databaseName: string;
  until: { ts: string };
  base: { id: string; createdAt: string; consistentAt: { ts: string } };
};

/** The backup file's name as the backups table's download saves it (the server's name too). */
export const baseFileName = (plan: Plan) => `backup-${plan.databaseName}-${new Date(plan.base.createdAt).toISOString()}.enc.dbvault`;

export const slicesFileName = (plan: Plan) => `${plan.databaseName}-oplog-slices.zip`;

/** The slices' range: from the base's position to the moment's, what the restore replays. */
export const slicesRange = (plan: Plan) => ({ from: plan.base.consistentAt.ts, to: plan.until.ts });

/**
 * The commands, run where the two files were saved: the slices unzipped into a folder, then the
 * agent's offline restore up to the moment's exact oplog position (the second chosen, every
 * write of it included).
 */
export function offlineRestoreCommands(plan: Plan): string {
  const folder = `${plan.databaseName}-slices`;
  return [
    `unzip ${slicesFileName(plan)} -d ${folder}`,
    `dbvault-agent restore --db ${plan.databaseName} --in ${baseFileName(plan)} --oplog ${folder} --until ${plan.until.ts}`,
  ].join("\n");
}
