import { describe, expect, test } from "bun:test";
import { QueryClient } from "@tanstack/react-query";
import type { Backup, RestoreRecord } from "./dashboard-api";
import { backupsQueryKey } from "./get-backups";
import { restoresQueryKey } from "./get-restores";
import { applyBackupEvent, applyRestoreEvent } from "./live-updates";

const backup = (id: string) => ({ id, status: "pending", progress: null, size: 0 }) as unknown as Backup;
const restore = (id: string) => ({ id, status: "pending", progress: null, error: null }) as unknown as RestoreRecord;
const progress = { current: 1200, total: 2400, percentage: 50, collection: "orders" };

describe("realtime events in the query cache", () => {
  test("a backup event updates its row in every backup list and leaves the summary alone", () => {
    const cache = new QueryClient();
    const summary = { totalBackups: 1 };
    cache.setQueryData([...backupsQueryKey, "recent"], [backup("a"), backup("b")]);
    cache.setQueryData([...backupsQueryKey, "of-database", "shop"], [backup("a")]);
    cache.setQueryData([...backupsQueryKey, "summary"], summary);

    expect(applyBackupEvent(cache, { type: "backupProgress", backupId: "a", status: "in-progress", progress })).toBe(true);
    expect(cache.getQueryData<Backup[]>([...backupsQueryKey, "recent"])?.map((row) => [row.status, row.progress])).toEqual([
      ["in-progress", progress],
      ["pending", null],
    ]);
    expect(cache.getQueryData<Backup[]>([...backupsQueryKey, "of-database", "shop"])?.[0]?.status).toBe("in-progress");
    expect(cache.getQueryData([...backupsQueryKey, "summary"])).toBe(summary);

    // The completion carries the stored size; an event without one keeps the row's.
    applyBackupEvent(cache, { type: "backupProgress", backupId: "a", status: "completed", progress, size: 307200 });
    expect(cache.getQueryData<Backup[]>([...backupsQueryKey, "recent"])?.[0]).toMatchObject({ status: "completed", size: 307200 });
  });

  test("an event about a row no list holds yet says so, and changes nothing", () => {
    const cache = new QueryClient();
    const list = [backup("a")];
    cache.setQueryData([...backupsQueryKey, "recent"], list);
    expect(applyBackupEvent(cache, { type: "backupProgress", backupId: "new", status: "pending", progress: null })).toBe(false);
    expect(cache.getQueryData([...backupsQueryKey, "recent"])).toBe(list);
    expect(applyRestoreEvent(cache, { type: "restoreProgress", restoreId: "r", status: "pending", progress: null, error: null })).toBe(false);
  });

  test("a restore event updates its row's status, progress and error", () => {
    const cache = new QueryClient();
    cache.setQueryData(restoresQueryKey, [restore("r1"), restore("r2")]);
    expect(applyRestoreEvent(cache, { type: "restoreProgress", restoreId: "r2", status: "failed", progress: null, error: "mongorestore exited with 1" })).toBe(
      true,
    );
    expect(cache.getQueryData<RestoreRecord[]>(restoresQueryKey)?.map((row) => [row.status, row.error])).toEqual([
      ["pending", null],
      ["failed", "mongorestore exited with 1"],
    ]);
  });
});
