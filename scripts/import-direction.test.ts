// The house's import rules, checked in the fast lane (CONTRIBUTING.md, docs/architecture.md): no
// file imports one that imports it back, however far round, and no feature folder imports one
// that imports it back. Type-only imports count: they tie the folders together just the same.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const ALIASES: Record<string, string> = { "@db/": "db/", "@protocol/": "protocol/", "@server/": "server/src/" };
/** Folders whose direct subfolders are features that must not import each other round. */
const FEATURE_ROOTS = ["server/src/modules", "agent/src", "web/src/features"];
/**
 * Server modules every feature may use, that import no module themselves (docs/architecture.md):
 * stored-files holds where and how backup and slice files are stored, for the catalogue, pitr,
 * retention and the agent link alike.
 */
const BASE_MODULES = ["stored-files"];

function productFiles(): string[] {
  const listed = Bun.spawnSync(["git", "ls-files", "--cached", "--others", "--exclude-standard", "server", "agent", "web", "protocol", "db"], { cwd: ROOT });
  return listed.stdout
    .toString()
    .split("\n")
    .filter((file) => /\.tsx?$/.test(file) && !/\.test\.tsx?$/.test(file) && !/\.d\.ts$/.test(file) && existsSync(join(ROOT, file)))
    .filter((file) => !file.startsWith("agent/test/") && !file.startsWith("server/test/") && !file.includes("/test-support/"));
}

/** The repository path an import specifier names, or null for a package. */
function resolveImport(from: string, specifier: string): string | null {
  const alias = Object.keys(ALIASES).find((prefix) => specifier.startsWith(prefix));
  const bare = alias ? ALIASES[alias] + specifier.slice(alias.length) : specifier.startsWith(".") ? join(dirname(from), specifier) : null;
  if (bare === null) return null;
  for (const candidate of [bare, `${bare}.ts`, `${bare}.tsx`, join(bare, "index.ts"), join(bare, "index.tsx")]) {
    if (/\.tsx?$/.test(candidate) && existsSync(join(ROOT, candidate))) return relative(ROOT, join(ROOT, candidate));
  }
  return null;
}

function importGraph(files: string[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  const pattern = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
  for (const file of files) {
    const source = readFileSync(join(ROOT, file), "utf8");
    const targets = new Set<string>();
    for (const match of source.matchAll(pattern)) {
      const target = resolveImport(file, match[1] ?? match[2]!);
      if (target && target !== file) targets.add(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Strongly connected groups of more than one node (Tarjan): each is a cycle. */
function cycles(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!));
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** The feature folder a file belongs to under `root`, or null when it is not in one. */
function featureOf(root: string, file: string): string | null {
  if (!file.startsWith(`${root}/`)) return null;
  const rest = file.slice(root.length + 1);
  return rest.includes("/") ? `${root}/${rest.split("/")[0]}` : null;
}

const graph = importGraph(productFiles());

describe("imports run one way", () => {
  test("the import graph was read (a guard against a check that sees nothing)", () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.get("server/src/modules/restores/service.ts")?.size).toBeGreaterThan(3);
  });

  test("no file imports one that imports it back", () => {
    expect(cycles(graph)).toEqual([]);
  });

  for (const root of FEATURE_ROOTS) {
    test(`no folder of ${root}/ imports one that imports it back`, () => {
      const folders = new Map<string, Set<string>>();
      for (const [file, targets] of graph) {
        const from = featureOf(root, file);
        if (!from) continue;
        const edges = folders.get(from) ?? folders.set(from, new Set()).get(from)!;
        for (const target of targets) {
          const to = featureOf(root, target);
          if (to && to !== from) edges.add(to);
        }
      }
      expect(cycles(folders)).toEqual([]);
    });
  }

  test("the server modules under every feature import no module", () => {
    const below = BASE_MODULES.map((name) => `server/src/modules/${name}`);
    const upward = [...graph].flatMap(([file, targets]) => {
      const from = featureOf("server/src/modules", file);
      if (!from || !below.includes(from)) return [];
      return [...targets]
        .filter((target) => {
          const to = featureOf("server/src/modules", target);
          return to !== null && to !== from;
        })
        .map((target) => `${file} -> ${target}`);
    });
    expect(upward).toEqual([]);
  });

  test("no web feature imports another (what two share goes in web/src/lib or components)", () => {
    const across = [...graph].flatMap(([file, targets]) => {
      const from = featureOf("web/src/features", file);
      if (!from) return [];
      return [...targets]
        .filter((target) => {
          const to = featureOf("web/src/features", target);
          return to !== null && to !== from;
        })
        .map((target) => `${file} -> ${target}`);
    });
    expect(across).toEqual([]);
  });

  test("web's shared code imports no feature", () => {
    const shared = [...graph].filter(([file]) => /^web\/src\/(lib|components|config)\//.test(file));
    const intoFeatures = shared.flatMap(([file, targets]) => [...targets].filter((t) => t.startsWith("web/src/features/")).map((t) => `${file} -> ${t}`));
    expect(intoFeatures).toEqual([]);
  });
});
