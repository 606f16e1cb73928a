import { atom } from "jotai";

export type DashboardTab = "backups" | "restores";

/** The database the header's selector points at (Trigger Backup, the size chart); "" when there is none. */
export const selectedDatabaseAtom = atom("");
export const dashboardTabAtom = atom<DashboardTab>("backups");
