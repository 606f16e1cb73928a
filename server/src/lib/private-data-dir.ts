// The data directory holds the embedded database (whose files and write-ahead log contain password
// hashes, e-mails and key ciphertexts), the server's secrets and, by default, the backups: nobody
// but the server's own user may read it. PGlite creates its files 0666 under a permissive umask.
import { chmodSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";

const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;

/**
 * Makes `dataDir` private: creates it 0700 if missing, gives every folder in it 0700 and every
 * file 0600 (symbolic links are left alone, not followed), and sets this process's umask to 077
 * so what is created later is private too. Returns the paths whose mode was changed.
 */
export function makeDataDirPrivate(dataDir: string): string[] {
  process.umask(0o077);
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR });
  const fixed: string[] = [];
  const visit = (path: string) => {
    const info = lstatSync(path);
    if (info.isSymbolicLink()) return;
    const wanted = info.isDirectory() ? PRIVATE_DIR : PRIVATE_FILE;
    if ((info.mode & 0o777) !== wanted) {
      chmodSync(path, wanted);
      fixed.push(path);
    }
    if (info.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dataDir);
  return fixed;
}
