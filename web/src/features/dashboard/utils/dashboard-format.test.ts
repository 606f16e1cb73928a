import { describe, expect, test } from "bun:test";
import {
  backupDownloadName,
  describeBackupLimit,
  formatBytes,
  formatDocumentCount,
  formatMegabytes,
  restorableCollections,
  storageBarTone,
  storagePercent,
} from "./dashboard-format";

describe("dashboard formatting", () => {
  test("sizes in 1024 steps with Bytes, KB, MB, GB, TB and 2 decimals", () => {
    expect(formatBytes(0)).toBe("0 Bytes");
    expect(formatBytes(512)).toBe("512 Bytes");
    expect(formatBytes(1536)).toBe("1.5 KB");
    expect(formatBytes(5 * 1024 ** 3)).toBe("5 GB");
    expect(formatBytes(1234567)).toBe("1.18 MB");
    expect(formatBytes(3 * 1024 ** 4)).toBe("3 TB");
  });

  test("storage bar: green up to 70 %, amber above 70, red above 90", () => {
    expect(storageBarTone(0)).toBe("green");
    expect(storageBarTone(70)).toBe("green");
    expect(storageBarTone(70.1)).toBe("amber");
    expect(storageBarTone(90)).toBe("amber");
    expect(storageBarTone(90.5)).toBe("red");
    expect(storagePercent(75, 100)).toBe(75);
    expect(storagePercent(150, 100)).toBe(100);
    expect(storagePercent(10, 0)).toBe(0);
  });

  test("document counts with K and M", () => {
    expect(formatDocumentCount(0)).toBe("0");
    expect(formatDocumentCount(999)).toBe("999");
    expect(formatDocumentCount(1000)).toBe("1K");
    expect(formatDocumentCount(1250)).toBe("1.3K");
    expect(formatDocumentCount(999_949)).toBe("999.9K");
    expect(formatDocumentCount(2_000_000)).toBe("2M");
    expect(formatDocumentCount(3_450_000)).toBe("3.5M");
  });

  test("download file name and size", () => {
    expect(backupDownloadName({ databaseName: "shop", createdAt: "2025-03-01T10:20:30.456Z" })).toBe("backup-shop-2025-03-01T10:20:30.456Z.enc.dbvault");
    expect(formatMegabytes(1024 * 1024 * 1.5)).toBe("1.50");
    expect(formatMegabytes(1000)).toBe("0.00");
  });

  test("backup limit toast names the next time and date", () => {
    const next = new Date(2025, 4, 6, 14, 5).toISOString();
    expect(describeBackupLimit("Your Free plan allows one manual backup every 24 hours.", next)).toBe(
      "Your Free plan allows one manual backup every 24 hours. Next backup available at 2:05 PM on May 6, 2025.",
    );
    expect(describeBackupLimit("Too soon.", null)).toBe("Too soon.");
  });
});

test("the collections a restore can be limited to leave out admin's users, roles and auth version", () => {
  const inventory = { "shop.orders": 5, "admin.system.users": 2, "admin.system.roles": 1, "admin.system.version": 1, "shop.customers": 3, "shop.system.js": 1 };
  expect(restorableCollections(inventory)).toEqual([
    ["customers", 3],
    ["orders", 5],
    ["system.js", 1],
  ]);
});
