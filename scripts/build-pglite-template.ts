// Writes dist/pglite-template.tar.gz: a fresh embedded-database cluster, which the single-file
// server embeds and unpacks on its first start instead of running initdb (about a second instead
// of several; server/src/bootstrap.ts). Rebuilt by build-server.ts when PGlite changes.
//   bun scripts/build-pglite-template.ts
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { dumpFreshPgliteCluster } from "../db/client";
import { PGLITE_TEMPLATE_BUILD, repoRoot } from "./build-freshness";

const outfile = join(repoRoot, PGLITE_TEMPLATE_BUILD.output);
mkdirSync(dirname(outfile), { recursive: true });
const started = performance.now();
const dump = await dumpFreshPgliteCluster();
await Bun.write(outfile, dump);
console.log(`build-pglite-template: ${outfile} (${(dump.size / 1024 / 1024).toFixed(1)} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
