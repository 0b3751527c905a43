/**
 * The egress check of `deno task check` (scripts/check_egress.ts): a bare fetch of a URL, under
 * any name, a raw connection or a Deno HTTP client anywhere under lib/ but the allowlisted
 * files fails; prose that mentions them does not; an allowance nobody needs fails; and the
 * repository as it stands passes.
 */
import assert from "node:assert/strict";
import { ALLOWED, checkTree, findings } from "../../scripts/check_egress.ts";

const FILE = "lib/capture/page/og_image.ts";

Deno.test("a service-side fetch of a page's URL outside the egress module fails", () => {
  const uses = [
    "const res = await fetch(url);",
    "const res = await deps.fetch(url, { signal });",
    "const { fetch: get } = deps;",
    "const get = globalThis.fetch;",
    "const conn = await Deno.connect({ hostname, port });",
    "const conn = await Deno.connectTls({ hostname, port });",
    "const tls = await Deno.startTls(conn, { hostname });",
    "const client = Deno.createHttpClient({ proxy: { url } });",
    "const socket = new WebSocket(url);",
    'import https from "node:https";',
    'import { connect } from "node:net";',
  ];
  for (const line of uses) {
    assert.equal(findings(FILE, `// a module\n${line}\n`).length, 1, line);
    assert.match(findings(FILE, `\n${line}`)[0], /^lib\/capture\/page\/og_image\.ts:2: /, line);
  }
});

Deno.test("prose, names and helpers that only look alike pass", () => {
  const fine = [
    "/** Why fetch() is not used here: Deno.createHttpClient follows NO_PROXY. */",
    "// a bare fetch(url) would skip the boundary",
    'const types = ["fetch", "xhr"];',
    "export function prefetch(url) { return url; }",
    "const fetched = await getThroughProxy(url, request);",
    'import { isIPv4 } from "node:net";',
    'const home = "https://example.com//fetch(";',
  ];
  for (const line of fine) assert.deepEqual(findings(FILE, line), [], line);
});

Deno.test("an allowlisted file may use what its entry names, with a reason; no more", () => {
  for (const [file, { uses, why }] of Object.entries(ALLOWED)) {
    assert.ok(uses.length > 0 && why.length > 20, `${file} needs its uses and a reason`);
  }
  assert.deepEqual(findings("lib/media/proxy.ts", "await deps.fetch(upstream);"), []);
  // The egress module itself may not fall back to an HTTP client that reads the environment.
  const client = "const c = Deno.createHttpClient({ proxy });\nDeno.connect(p);\nDeno.startTls(c);";
  assert.deepEqual(findings("lib/egress/proxied_fetch.ts", client), [
    "lib/egress/proxied_fetch.ts:1: Deno.createHttpClient",
  ]);
  assert.deepEqual(findings("lib/media/proxy.ts", "export const NOTHING = 1;"), [
    "lib/media/proxy.ts: allowed fetch(, but does not use it",
  ]);
});

Deno.test("the repository as it stands passes", async () => {
  const root = new URL("../../", import.meta.url).pathname;
  assert.deepEqual(await checkTree(root), []);
});
