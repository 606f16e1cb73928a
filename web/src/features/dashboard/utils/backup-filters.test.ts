import { expect, test } from "bun:test";
import { backupFiltersSearch, backupListQuery, isFiltered, NO_BACKUP_FILTERS, readBackupFilters } from "./backup-filters";

test("filters survive the URL: written, read back the same", () => {
  const filters = {
    search: "shop",
    status: "failed",
    from: "2026-11-01",
    to: "2026-11-30",
    verified: "false",
    pitrBase: "true",
    page: 3,
    backup: "abc-123",
  } as const;
  const search = backupFiltersSearch(filters);
  expect(search).toBe("?q=shop&status=failed&from=2026-11-01&to=2026-11-30&verified=false&pitrBase=true&page=3&backup=abc-123");
  expect(readBackupFilters(search)).toEqual(filters);
  expect(backupFiltersSearch(NO_BACKUP_FILTERS)).toBe("");
});

test("values the list does not offer are dropped, not sent", () => {
  expect(readBackupFilters("?status=done&from=yesterday&verified=yes&pitrBase=1&page=-2&backup=../x")).toEqual(NO_BACKUP_FILTERS);
  expect(isFiltered(readBackupFilters("?page=2&backup=x"))).toBe(false);
});

test("the API query: only the filters set, a reversed range swapped", () => {
  expect(backupListQuery(NO_BACKUP_FILTERS)).toEqual({});
  expect(backupListQuery({ ...NO_BACKUP_FILTERS, from: "2026-12-01", to: "2026-11-01", page: 2 })).toEqual({ from: "2026-11-01", to: "2026-12-01", page: 2 });
});
