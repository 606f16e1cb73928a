// Builds the web app into web/dist: Bun's bundler over web/index.html (production, minified,
// code splitting, hashed names), the UnoCSS CLI over web/src for the stylesheet, the self-hosted
// font files, and a budget check on the JavaScript the landing page loads before it can render.
//
//   bun scripts/build-web.ts            build (fails over budget)
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import type { BunPlugin } from "bun";

const root = resolve(import.meta.dir, "..");
const webDir = join(root, "web");
const outDir = join(webDir, "dist");
const assetsDir = join(outDir, "assets");

/** Budget for the landing page's initial JavaScript (spec: under 150 KB gzipped). */
const INITIAL_JS_BUDGET_BYTES = 150 * 1024;
/** The page whose initial JavaScript is measured: the module its route lazily loads. */
const LANDING_PAGE_MODULE = "web/src/app/routes/landing.tsx";

/** Fonts we serve ourselves (no third-party font service): family CSS and the subsets we ship. */
const FONTS = [
  { css: "node_modules/@fontsource-variable/inter/wght.css", subsets: ["latin", "latin-ext"], preload: "latin" },
  { css: "node_modules/@fontsource-variable/jetbrains-mono/wght.css", subsets: ["latin"], preload: null },
];

const contentHash = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex").slice(0, 10);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

function fail(message: string): never {
  console.error(`build-web: ${message}`);
  process.exit(1);
}

/** Runs the UnoCSS CLI over the components and returns the generated stylesheet. */
async function generateUtilityCss(): Promise<string> {
  const tmp = mkdtempSync(join(tmpdir(), "dbvault-uno-"));
  const outFile = join(tmp, "uno.css");
  const cli = Bun.spawn([join(root, "node_modules/.bin/unocss"), "web/src/**/*.tsx", "-c", "web/uno.config.ts", "-o", outFile, "--minify"], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stdout, stderr] = await Promise.all([cli.exited, new Response(cli.stdout).text(), new Response(cli.stderr).text()]);
  // The CLI exits 1 without a word on a config error, so say where to look.
  if (code !== 0) fail(`UnoCSS failed (exit ${code}); check web/uno.config.ts\n${stdout}${stderr}`);
  const css = readFileSync(outFile, "utf8");
  rmSync(tmp, { recursive: true, force: true });
  return css;
}

/**
 * Copies the font subsets we ship into dist/assets/fonts under content-hashed names and returns
 * their @font-face rules (unicode ranges kept, so a browser fetches only the subsets a page uses).
 */
function copyFonts(): { css: string; preloads: string[] } {
  const fontsDir = join(assetsDir, "fonts");
  mkdirSync(fontsDir, { recursive: true });
  const rules: string[] = [];
  const preloads: string[] = [];
  for (const font of FONTS) {
    const cssPath = join(root, font.css);
    const blocks = readFileSync(cssPath, "utf8").match(/@font-face\s*{[^}]*}/g) ?? [];
    for (const subset of font.subsets) {
      const block = blocks.find((b) => new RegExp(`-${subset}-wght-normal\\.woff2`).test(b));
      if (!block) fail(`no ${subset} subset in ${font.css}`);
      const fileRef = block.match(/url\(\.\/(files\/[^)]+\.woff2)\)/)?.[1];
      if (!fileRef) fail(`no woff2 file in a rule of ${font.css}`);
      const bytes = readFileSync(join(cssPath, "..", fileRef));
      const name = `${basename(fileRef, ".woff2")}-${contentHash(bytes)}.woff2`;
      writeFileSync(join(fontsDir, name), bytes);
      const url = `/assets/fonts/${name}`;
      rules.push(block.replace(/url\([^)]+\)/, `url(${url})`));
      if (font.preload === subset) preloads.push(url);
    }
  }
  return { css: rules.join("\n"), preloads };
}

/** Serves `import "virtual:generated.css"` (fonts + utilities) to the bundler. */
function generatedCssPlugin(css: string): BunPlugin {
  return {
    name: "dbvault-generated-css",
    setup(build) {
      build.onResolve({ filter: /^virtual:generated\.css$/ }, () => ({ path: "generated.css", namespace: "dbvault" }));
      build.onLoad({ filter: /.*/, namespace: "dbvault" }, () => ({ contents: css, loader: "css" }));
    },
  };
}

/** Gzipped bytes of the JavaScript the landing page needs: entry, the landing chunk, and their static imports. */
function measureLandingJs(metafile: NonNullable<Bun.BuildOutput["metafile"]>) {
  // Output keys and import paths are relative to the output directory.
  const outputs = new Map(Object.entries(metafile.outputs).map(([key, output]) => [resolve(outDir, key), output]));
  const findChunk = (entryPoint: string) =>
    [...outputs].find(([path, output]) => path.endsWith(".js") && output.entryPoint && resolve(root, output.entryPoint) === resolve(root, entryPoint))?.[0];
  const entry = findChunk("web/index.html");
  const landing = findChunk(LANDING_PAGE_MODULE);
  if (!entry) fail("could not find the entry chunk in the build metafile");
  if (!landing) fail(`could not find the chunk of ${LANDING_PAGE_MODULE} in the build metafile`);
  const files = new Set<string>();
  const visit = (path: string) => {
    if (files.has(path) || !path.endsWith(".js")) return;
    files.add(path);
    for (const imp of outputs.get(path)?.imports ?? []) if (imp.kind === "import-statement") visit(resolve(outDir, imp.path));
  };
  visit(entry);
  visit(landing);
  let raw = 0;
  let gzipped = 0;
  for (const file of files) {
    const bytes = readFileSync(file);
    raw += bytes.byteLength;
    gzipped += gzipSync(bytes, { level: 9 }).byteLength;
  }
  return { files: [...files], raw, gzipped };
}

async function build() {
  const started = performance.now();
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(assetsDir, { recursive: true });

  const utilities = await generateUtilityCss();
  const fonts = copyFonts();

  const result = await Bun.build({
    entrypoints: [join(webDir, "index.html")],
    outdir: outDir,
    root: webDir,
    target: "browser",
    minify: true,
    // Absolute URLs: deep links such as /kb/some-article load the same files.
    publicPath: "/",
    splitting: true,
    sourcemap: "none",
    metafile: true,
    define: { "process.env.NODE_ENV": JSON.stringify("production") },
    naming: { entry: "[dir]/[name].[ext]", chunk: "assets/[name]-[hash].[ext]", asset: "assets/[name]-[hash].[ext]" },
    // The fonts are already in place under hashed names; the CSS refers to them by URL.
    external: ["/assets/fonts/*"],
    plugins: [generatedCssPlugin(`${fonts.css}\n${utilities}`)],
    throw: false,
  });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    fail("bundling failed");
  }

  // Preload the body font so text does not reflow when it arrives.
  const indexPath = join(outDir, "index.html");
  const preloadTags = fonts.preloads.map((url) => `<link rel="preload" href="${url}" as="font" type="font/woff2" crossorigin>`).join("");
  writeFileSync(indexPath, readFileSync(indexPath, "utf8").replace("</head>", `${preloadTags}</head>`));

  const landing = measureLandingJs(result.metafile!);
  for (const output of result.outputs) console.log(`  ${relative(root, output.path).padEnd(48)} ${kb(output.size)}`);
  console.log(
    `\nInitial JavaScript for the landing page: ${kb(landing.gzipped)} gzipped (${kb(landing.raw)} raw, ${landing.files.length} files); budget ${kb(INITIAL_JS_BUDGET_BYTES)}`,
  );
  if (landing.gzipped > INITIAL_JS_BUDGET_BYTES)
    fail(`landing page JavaScript is over budget: ${kb(landing.gzipped)} > ${kb(INITIAL_JS_BUDGET_BYTES)} gzipped`);
  console.log(`web app built into ${relative(root, outDir)}/ in ${Math.round(performance.now() - started)} ms`);
}

await build();
