import { afterAll, expect, test } from "bun:test";
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initPgliteCluster } from "@db/client";
import { openDatabase } from "../bootstrap";
import { loadConfig } from "../config";
import { makeDataDirPrivate } from "./private-data-dir";

const root = mkdtempSync(join(tmpdir(), "dbvault-private-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function modes(dir: string): Map<string, number> {
  const found = new Map<string, number>();
  const visit = (path: string) => {
    const info = lstatSync(path);
    if (info.isSymbolicLink()) return;
    found.set(path, info.mode & 0o777);
    if (info.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return found;
}

test("an existing data directory is made private: folders 0700, files 0600, links left alone", () => {
  const dir = join(root, "existing");
  mkdirSync(join(dir, "backups", "u1"), { recursive: true, mode: 0o755 });
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, "secrets.json"), "{}", { mode: 0o644 });
  writeFileSync(join(dir, "backups", "u1", "part"), "x", { mode: 0o666 });
  writeFileSync(join(root, "outside"), "not ours", { mode: 0o644 });
  symlinkSync(join(root, "outside"), join(dir, "link"));
  const fixed = makeDataDirPrivate(dir);
  expect(fixed.sort()).toEqual([dir, join(dir, "backups"), join(dir, "backups", "u1"), join(dir, "backups", "u1", "part"), join(dir, "secrets.json")].sort());
  for (const [path, mode] of modes(dir)) expect([path, mode]).toEqual([path, lstatSync(path).isDirectory() ? 0o700 : 0o600]);
  expect(lstatSync(join(root, "outside")).mode & 0o777).toBe(0o644);
  expect(makeDataDirPrivate(dir)).toEqual([]);
});

test("a fresh embedded database is private from its first start, write-ahead log included", async () => {
  const dataDir = join(root, "fresh");
  const database = await openDatabase(loadConfig({ DATA_DIR: dataDir }), initPgliteCluster);
  await database.close();
  const all = modes(dataDir);
  expect(all.size).toBeGreaterThan(100);
  const open = [...all].filter(([path, mode]) => mode !== (lstatSync(path).isDirectory() ? 0o700 : 0o600));
  expect(open.map(([path, mode]) => `${path.slice(dataDir.length)} ${mode.toString(8)}`)).toEqual([]);
  expect([...all.keys()].some((path) => path.includes("pg_wal"))).toBe(true);
});
