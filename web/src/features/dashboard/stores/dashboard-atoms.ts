import { atom } from "jotai";
import type { OperationProgress } from "../api/dashboard-api";

export type DashboardTab = "backups" | "restores";
/** `size`: the stored bytes, which the completion event carries. */
export type LiveBackup = { status: string; progress: OperationProgress | null; size?: number };
export type LiveRestore = { status: string; progress: OperationProgress | null; error: string | null };

/** The database the header's selector points at (Trigger Backup, the size chart); "" when there is none. */
export const selectedDatabaseAtom = atom("");
export const dashboardTabAtom = atom<DashboardTab>("backups");
/** Live state of running backups from the realtime channel, by backup id. */
export const liveBackupsAtom = atom<Record<string, LiveBackup>>({});
/** Live state of running restores from the realtime channel, by restore id. */
export const liveRestoresAtom = atom<Record<string, LiveRestore>>({});
