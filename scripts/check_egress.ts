/**
 * Fails when code under `lib/` or `routes/` opens a network connection of its own outside the
 * allowlist below: a `fetch(` call (injected fetches included), `Deno.connect*`, `Deno.startTls`,
 * `Deno.createHttpClient`, a WebSocket, or Node's client modules. Everything the service fetches
 * on a page's behalf (a favicon, a webhook) must leave through lib/egress/proxied_fetch.ts, which
 * speaks to an egress proxy session; any other client (Deno's fetch above all, whose proxy follows
 * NO_PROXY and HTTP(S)_PROXY) would let the environment route it around the boundary.
 *
 *   deno run --allow-read scripts/check_egress.ts .
 */

/** What counts as opening a connection, each with what it is. */
export const NETWORK_USES: { name: string; pattern: RegExp }[] = [
  { name: "fetch(", pattern: /(?<![\w$])fetch\s*\(/ },
  // A fetch taken under another name (`{ fetch: get }`, `const get = globalThis.fetch`).
  { name: "fetch renamed", pattern: /\bfetch\s*:\s*[A-Za-z_$][\w$]*\s*[,}]/ },
  { name: "global fetch", pattern: /\b(globalThis|self|window)\s*\.\s*fetch\b/ },
  { name: "Deno.connect", pattern: /\bDeno\s*\.\s*connect(Tls|Quic)?\b/ },
  { name: "Deno.startTls", pattern: /\bDeno\s*\.\s*startTls\b/ },
  { name: "Deno.createHttpClient", pattern: /\bDeno\s*\.\s*createHttpClient\b/ },
  { name: "WebSocket", pattern: /\bnew\s+WebSocket(Stream)?\s*\(/ },
  { name: "node client module", pattern: /["']node:(http|https|http2|tls|dgram)["']/ },
  {
    name: "node:net connection",
    pattern: /\b(connect|createConnection|Socket)\b[^;]*["']node:net["']/,
  },
];

/**
 * The files that may, which uses, and why: each reaches only hosts the operator fixed, or its own
 * process, or is the boundary itself. A page-supplied URL belongs in none of them.
 */
export const ALLOWED: Record<string, { uses: string[]; why: string }> = {
  "lib/egress/proxied_fetch.ts": {
    uses: ["Deno.connect", "Deno.startTls"],
    why: "the one way out for page-supplied URLs: TCP to the egress proxy session, TLS through it",
  },
  "lib/egress/policy.ts": {
    uses: ["Deno.connect"],
    why: "the egress proxy's dialer: connects only to an address it has just judged",
  },
  "lib/capture/local/boundary_probe.ts": {
    uses: ["Deno.connect"],
    why: "the boundary self-test connects to its own loopback canary to prove the proxy refuses it",
  },
  "lib/media/proxy.ts": {
    uses: ["fetch("],
    why: "operator-fixed media hosts (lib/upstreams.ts), by Deno's fetch so HTTPS_PROXY applies",
  },
  "lib/posts/syndication.ts": {
    uses: ["fetch renamed"],
    why: "the fixed syndication origin, by Deno's fetch so HTTPS_PROXY applies",
  },
  "lib/capture/filter_lists.ts": {
    uses: ["fetch("],
    why: "ad filter lists from operator-configured URLs, fetched at start-up",
  },
  "lib/mcp/call.ts": {
    uses: ["fetch("],
    why: "MCP tools call the app's own in-process fetch: no network",
  },
  "lib/mcp/context.ts": {
    uses: ["fetch("],
    why: "declares the app's own in-process fetch the MCP tools call: no network",
  },
  "routes/mcp.ts": {
    uses: ["fetch("],
    why: "hands the MCP tools the app's own in-process fetch: no network",
  },
  "lib/editor/status.js": {
    uses: ["fetch("],
    why: "runs in the editor user's browser, against this service's own API",
  },
};

/** Comments removed (line and block), so prose that mentions fetch() does not count. */
function withoutComments(source: string): string {
  return source
    .replace(/\/\*[\s\S]*?\*\//g, "")
    // A `//` after a colon or a quote is a URL's, not a comment.
    .replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/**
 * `file:line: what` for each network use in `source` its allowlist entry does not name; and each
 * allowed use the file no longer makes (an allowance nobody needs is a door left open).
 */
export function findings(file: string, source: string): string[] {
  const allowed = ALLOWED[file]?.uses ?? [];
  const found: string[] = [];
  const seen = new Set<string>();
  withoutComments(source).split("\n").forEach((line, i) => {
    for (const use of NETWORK_USES) {
      if (!use.pattern.test(line)) continue;
      seen.add(use.name);
      if (!allowed.includes(use.name)) found.push(`${file}:${i + 1}: ${use.name}`);
    }
  });
  const unused = allowed.filter((name) => !seen.has(name));
  return [...found, ...unused.map((name) => `${file}: allowed ${name}, but does not use it`)];
}

/** The .ts and .js files under `dirs` of `root`, as paths relative to it. */
async function sourceFiles(root: string, dirs: string[]): Promise<string[]> {
  const files: string[] = [];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(`${root}/${dir}`)) {
      const path = `${dir}/${entry.name}`;
      // Vendored third-party page scripts run inside the captured page, behind the proxy.
      if (entry.name === "vendor" || entry.name.startsWith(".")) continue;
      if (entry.isDirectory) await walk(path);
      else if (/\.(ts|js)$/.test(entry.name)) files.push(path);
    }
  };
  for (const dir of dirs) await walk(dir);
  return files.sort();
}

/** Every finding under `lib/` and `routes/` of `root`. */
export async function checkTree(root: string): Promise<string[]> {
  const found: string[] = [];
  const files = await sourceFiles(root, ["lib", "routes"]);
  for (const file of files) {
    found.push(...findings(file, await Deno.readTextFile(`${root}/${file}`)));
  }
  const gone = Object.keys(ALLOWED).filter((file) => !files.includes(file));
  return [...found, ...gone.map((file) => `${file}: allowlisted, but no such file`)];
}

if (import.meta.main) {
  const found = await checkTree(Deno.args[0] ?? ".");
  if (found.length > 0) {
    console.error(
      "Network use outside lib/egress/proxied_fetch.ts and the allowlist of " +
        "scripts/check_egress.ts (a page-supplied URL must go through getThroughProxy or " +
        "sendThroughProxy):\n" +
        found.join("\n"),
    );
    Deno.exit(1);
  }
}
