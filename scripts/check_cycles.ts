/**
 * Fails when the project's own modules import each other in a cycle, type-only imports
 * included: a cycle means one module holds two jobs and should be split (docs/architecture.md).
 * Reads the module graph that `deno info --json` prints for the entry points given.
 *
 *   deno run --allow-run --allow-read scripts/check_cycles.ts main.ts routes lib
 */

interface InfoDependency {
  specifier: string;
  code?: { specifier?: string };
  type?: { specifier?: string };
}
interface InfoModule {
  specifier: string;
  dependencies?: InfoDependency[];
}

/** The project's file modules and the project files each imports (code or type). */
async function moduleGraph(entries: string[]): Promise<Map<string, string[]>> {
  const root = new URL("../", import.meta.url).href;
  const graph = new Map<string, string[]>();
  for (const entry of await expandEntries(entries)) {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", entry],
      stdout: "piped",
      stderr: "inherit",
    }).output();
    if (!output.success) throw new Error(`deno info failed for ${entry}`);
    const info = JSON.parse(new TextDecoder().decode(output.stdout)) as { modules: InfoModule[] };
    for (const module of info.modules) {
      if (!module.specifier.startsWith(root) || graph.has(module.specifier)) continue;
      const targets = (module.dependencies ?? [])
        .flatMap((d) => [d.code?.specifier, d.type?.specifier])
        .filter((s): s is string => s !== undefined && s.startsWith(root));
      graph.set(module.specifier, [...new Set(targets)]);
    }
  }
  return graph;
}

/** Files given directly, and the .ts files under each directory given. */
async function expandEntries(entries: string[]): Promise<string[]> {
  const files: string[] = [];
  for (const entry of entries) {
    const stat = await Deno.stat(entry);
    if (stat.isFile) files.push(entry);
    else {
      for await (const item of Deno.readDir(entry)) {
        const path = `${entry}/${item.name}`;
        if (item.isDirectory) files.push(...await expandEntries([path]));
        else if (item.name.endsWith(".ts") && !item.name.endsWith(".d.ts")) files.push(path);
      }
    }
  }
  return files;
}

/** Strongly connected components with more than one module (Tarjan), i.e. the cycles. */
function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component);
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

if (import.meta.main) {
  const root = new URL("../", import.meta.url).href;
  const graph = await moduleGraph(Deno.args.length ? Deno.args : ["main.ts"]);
  const found = cycles(graph);
  for (const component of found) {
    console.error(`import cycle: ${component.map((m) => m.slice(root.length)).sort().join(", ")}`);
  }
  if (found.length > 0) Deno.exit(1);
  console.log(`no import cycles among ${graph.size} modules`);
}
