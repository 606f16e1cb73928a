// Runs one exported async function of a module in a fresh Bun process and returns its JSON
// result. Memory tests use it: RSS measured inside the shared test-runner process also counts
// whatever earlier test files left behind (embedded databases, collector backlog), so a bound
// that holds for the code under test fails there at random.
export async function runIsolated<T>(modulePath: string, exportName: string, args: unknown[] = []): Promise<T> {
  const script = `const m = await import(${JSON.stringify(modulePath)});
    const result = await m[${JSON.stringify(exportName)}](...${JSON.stringify(args)});
    process.stdout.write("\\n@@result " + JSON.stringify(result) + "\\n");`;
  const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
  const [output, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  const line = output.split("\n").find((l) => l.startsWith("@@result "));
  if (code !== 0 || !line) throw new Error(`${exportName} failed in its own process (exit ${code}): ${output.slice(-2000)}`);
  return JSON.parse(line.slice("@@result ".length)) as T;
}
