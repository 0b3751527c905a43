/**
 * `deno run -A scripts/mcp_inspector.ts [base URL]`: the MCP Inspector's CLI
 * (npm:@modelcontextprotocol/inspector-cli, a client nobody here wrote, run with node) against
 * /mcp: lists the tools and calls each one (a long page as tiles too; a job of two captures,
 * started, then read with waitSeconds once it finished), lists the resource templates, printing
 * every command and its answer (long strings
 * such as base64 images cut short). Without a base URL it starts main.ts on 127.0.0.1 with
 * ALLOW_PRIVATE_NETWORK=true (the capture is of the service's own /docs page, so nothing leaves
 * the machine), KV_PATH=:memory: and filter lists on a closed loopback port, and stops it at the
 * end.
 *
 * get_post is called with an id that is not numeric: a valid id would go to the public
 * syndication interface, which this script must not reach; the refusal shows the envelope.
 */
import { Buffer } from "node:buffer";
import { encodePng } from "../lib/codecs/png_encoder.ts";
import { startService } from "../testing/service_process.ts";

const INSPECTOR = "@modelcontextprotocol/inspector-cli@1.0.3";
// A 32x32 gradient PNG: small enough to pass on a command line as base64.
const GRADIENT = Uint8Array.from({ length: 32 * 32 * 3 }, (_, i) => (i % 3 === 2 ? 128 : i >> 4));
const TINY_PNG = Buffer.from(encodePng({ data: GRADIENT, width: 32, height: 32, channels: 3 }, 9))
  .toString("base64");
// Strings past this length are printed as their start and their length.
const SHOWN_CHARS = 120;

async function run(command: string, args: string[], cwd?: string): Promise<string> {
  const output = await new Deno.Command(command, { args, cwd, stderr: "inherit" }).output();
  if (!output.success) throw new Error(`${command} ${args.join(" ")} failed (${output.code})`);
  return new TextDecoder().decode(output.stdout);
}

/** The inspector's CLI, installed with npm into a temporary directory; returns its build dir. */
async function installInspector(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "mcp-inspector-" });
  await run("npm", ["install", "--prefix", dir, "--no-audit", "--no-fund", "--silent", INSPECTOR]);
  return `${dir}/node_modules/@modelcontextprotocol/inspector-cli/build`;
}

function trimmed(value: unknown): unknown {
  if (typeof value === "string" && value.length > SHOWN_CHARS) {
    return `${value.slice(0, SHOWN_CHARS)}... (${value.length} chars)`;
  }
  if (Array.isArray(value)) return value.map(trimmed);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, trimmed(v)]));
  }
  return value;
}

/** A tools/list answer as each tool's name, title, argument names and required ones. */
function summary(answer: { tools?: Array<Record<string, unknown>> }): unknown {
  if (!answer.tools) return answer;
  return answer.tools.map((tool) => {
    const schema = tool.inputSchema as { properties: object; required?: string[] };
    const { name, title, annotations } = tool;
    return {
      name,
      title,
      arguments: Object.keys(schema.properties).join(", "),
      required: schema.required,
      annotations,
    };
  });
}

/** Runs the inspector's CLI with `call` against `base`, prints the command and its answer. */
async function inspect(base: string, build: string, call: string[]) {
  const args = [`${base}/mcp`, "--transport", "http", ...call];
  console.log(`$ mcp-inspector-cli ${args.join(" ")}`);
  // Its index.js looks for its own package.json relative to the working directory.
  const answer = JSON.parse(await run("node", ["index.js", ...args], build));
  console.log(JSON.stringify(trimmed(summary(answer)), null, 2), "\n");
  return answer as Record<string, unknown>;
}

async function main() {
  const given = Deno.args[0];
  const service = given ? undefined : await startService({
    ALLOW_PRIVATE_NETWORK: "true",
    KV_PATH: ":memory:",
    // The filter lists would be fetched from the internet: a closed loopback port instead.
    ADBLOCK_LIST_URLS: "http://127.0.0.1:9/easylist.txt",
    ANNOYANCE_LIST_URLS: "http://127.0.0.1:9/annoyances.txt",
  });
  const base = given ?? service!.base;
  try {
    const build = await installInspector();
    const calls: string[][] = [
      ["--method", "tools/list"],
      [
        "--method",
        "tools/call",
        "--tool-name",
        "capture_screenshot",
        "--tool-arg",
        `url=${base}/docs`,
        "width=800",
        "height=600",
      ],
      // A long page: the overview and its tiles, then the link to the whole capture.
      [
        "--method",
        "tools/call",
        "--tool-name",
        "capture_screenshot",
        "--tool-arg",
        `url=${base}/docs`,
        "fullPage=true",
        "maxTiles=3",
      ],
      ["--method", "tools/call", "--tool-name", "read_page", "--tool-arg", `url=${base}/docs`],
      ["--method", "resources/templates/list"],
      ["--method", "tools/call", "--tool-name", "capture_screenshot", "--tool-arg", "url=ftp://x"],
      ["--method", "tools/call", "--tool-name", "get_post", "--tool-arg", "id=not-a-number"],
      [
        "--method",
        "tools/call",
        "--tool-name",
        "export_image",
        "--tool-arg",
        `image=${TINY_PNG}`,
        "format=webp",
        "qualityPreset=high",
      ],
    ];
    for (const call of calls) await inspect(base, build, call);
    // A job of two captures of the service's own pages, then the job once it finished.
    const requests = [{ url: `${base}/docs` }, { url: `${base}/llms.txt`, format: "jpeg" }];
    const started = await inspect(base, build, [
      "--method",
      "tools/call",
      "--tool-name",
      "start_capture_job",
      "--tool-arg",
      `requests=${JSON.stringify(requests)}`,
    ]);
    const id = (started.structuredContent as { id?: string } | undefined)?.id;
    if (!id) throw new Error("start_capture_job answered no job id");
    await inspect(base, build, [
      "--method",
      "tools/call",
      "--tool-name",
      "get_capture_job",
      "--tool-arg",
      `id=${id}`,
      "waitSeconds=60",
    ]);
  } finally {
    await service?.stop();
  }
}

if (import.meta.main) await main();
