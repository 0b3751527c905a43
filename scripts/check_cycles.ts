/**
 * Fails when the project's own code imports itself in a circle, type-only imports included,
 * at two scales (docs/architecture.md):
 *
 * - modules: a cycle means one module holds two jobs and should be split;
 * - folders: no two folders import each other. A folder's modules that its sub-folders import
 *   (a capability's shared types, `lib/errors.ts`) count on their own, not as their folder, so a
 *   capability may use its parent's shared modules as long as those never import it back.
 *
 * And nothing under `lib/` imports the composition root (`lib/services.ts`): it assembles the
 * capabilities, so a capability that imported it would import every other one; nor `routes/`.
 * Reads the module graph that `deno info --json` prints for the entry points given.
 *
 * And nothing outside `tests/` imports a module of `tests/`: fixtures and helpers that tests,
 * benches and scripts share live in `testing/`.
 *
 *   deno run --allow-run --allow-read --allow-write scripts/check_cycles.ts .
 */

/** Project files (paths relative to the repository root) and the project files each imports. */
export type ModuleGraph = Map<string, string[]>;

/** The composition root: it builds the services, so no capability may depend on it. */
export const COMPOSITION_ROOT = "lib/services.ts";

interface InfoDependency {
  specifier: string;
  code?: { specifier?: string };
  type?: { specifier?: string };
}
interface InfoModule {
  specifier: string;
  dependencies?: InfoDependency[];
}

/**
 * The project's file modules and the project files each imports (code or type), read in one
 * `deno info` run over a module that imports every entry (one run per entry took minutes).
 */
async function moduleGraph(entries: string[]): Promise<ModuleGraph> {
  const root = new URL("../", import.meta.url).href;
  const files = await expandEntries(entries);
  const hub = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    const lines = files.map((file) => `import "${new URL(file, root).href}";`);
    await Deno.writeTextFile(hub, lines.join("\n") + "\n");
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "--config", new URL("deno.json", root).pathname, hub],
      stdout: "piped",
      stderr: "inherit",
    }).output();
    if (!output.success) throw new Error(`deno info failed for ${entries.join(" ")}`);
    const info = JSON.parse(new TextDecoder().decode(output.stdout)) as { modules: InfoModule[] };
    const graph: ModuleGraph = new Map();
    for (const module of info.modules) {
      if (!module.specifier.startsWith(root)) continue;
      const targets = (module.dependencies ?? [])
        .flatMap((d) => [d.code?.specifier, d.type?.specifier])
        .filter((s): s is string => s !== undefined && s.startsWith(root))
        .map((s) => s.slice(root.length));
      graph.set(module.specifier.slice(root.length), [...new Set(targets)]);
    }
    return graph;
  } finally {
    await Deno.remove(hub);
  }
}

/** Files given directly, and the .ts files under each directory given. */
async function expandEntries(entries: string[]): Promise<string[]> {
  const files: string[] = [];
  for (const entry of entries) {
    const stat = await Deno.stat(entry);
    if (stat.isFile) files.push(entry);
    else {
      for await (const item of Deno.readDir(entry)) {
        // Git's own files, npm's and the benches' downloaded corpus are not the project's code.
        if (item.name.startsWith(".") || item.name === "node_modules") continue;
        const path = `${entry}/${item.name}`;
        if (item.isDirectory) files.push(...await expandEntries([path]));
        else if (item.name.endsWith(".ts") && !item.name.endsWith(".d.ts")) files.push(path);
      }
    }
  }
  return files;
}

/** Strongly connected components with more than one node (Tarjan), i.e. the cycles. */
export function cycles(graph: Map<string, Iterable<string>>): string[][] {
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
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

function folderOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "." : path.slice(0, slash);
}

function contains(folder: string, path: string): boolean {
  return folder === "." || path.startsWith(`${folder}/`);
}

/**
 * The folder graph: each module stands for its folder, except a module that a sub-folder of its
 * own folder imports, which stands for itself (a parent's shared module).
 */
export function folderGraph(graph: ModuleGraph): Map<string, Set<string>> {
  const shared = new Set<string>();
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const home = folderOf(to);
      if (folderOf(from) !== home && contains(home, from)) shared.add(to);
    }
  }
  const node = (path: string) => shared.has(path) ? path : `${folderOf(path)}/`;
  const folders = new Map<string, Set<string>>();
  for (const [from, targets] of graph) {
    const source = node(from);
    const edges = folders.get(source) ?? new Set<string>();
    folders.set(source, edges);
    for (const to of targets) {
      const target = node(to);
      if (target !== source) edges.add(target);
    }
  }
  return folders;
}

/** Every way the project breaks the rules: module cycles, folder cycles, root imports. */
export function violations(graph: ModuleGraph): string[] {
  const found: string[] = [];
  for (const component of cycles(graph)) found.push(`module cycle: ${component.join(", ")}`);
  const folders = folderGraph(graph);
  for (const component of cycles(folders)) {
    const members = new Set(component);
    const edges = component.flatMap((from) =>
      [...folders.get(from) ?? []].filter((to) => members.has(to)).map((to) => `${from} -> ${to}`)
    );
    found.push(`folder cycle: ${edges.join("; ")}`);
  }
  for (const [from, targets] of graph) {
    // Tests are leaves: what tests, benches and scripts share lives in testing/.
    if (!from.startsWith("tests/")) {
      for (const test of targets.filter((to) => to.startsWith("tests/"))) {
        found.push(`${from} imports ${test} from tests/ (shared code belongs in testing/)`);
      }
    }
    if (!from.startsWith("lib/")) continue;
    if (targets.includes(COMPOSITION_ROOT)) {
      found.push(`${from} imports the composition root ${COMPOSITION_ROOT}`);
    }
    // Routes are the HTTP edge built on lib/; a lib module that needed one would invert that.
    for (const route of targets.filter((to) => to.startsWith("routes/"))) {
      found.push(`${from} imports the route module ${route}`);
    }
  }
  return found;
}

if (import.meta.main) {
  const graph = await moduleGraph(Deno.args.length ? Deno.args : ["main.ts"]);
  const found = violations(graph);
  for (const line of found) console.error(line);
  if (found.length > 0) Deno.exit(1);
  console.log(`no import cycles among ${graph.size} modules or their folders`);
}
