/**
 * The import check of `deno task check` on made-up module graphs: it must fail on two folders
 * importing each other, on a parent's shared module that imports the sub-folder using it, on a
 * module cycle and on lib/ importing the composition root or a route, and pass a graph that only
 * descends.
 */
import assert from "node:assert/strict";
import { type ModuleGraph, violations } from "../../scripts/check_cycles.ts";

function graphOf(edges: Record<string, string[]>): ModuleGraph {
  const graph: ModuleGraph = new Map(Object.entries(edges));
  for (const targets of Object.values(edges)) {
    for (const target of targets) if (!graph.has(target)) graph.set(target, []);
  }
  return graph;
}

Deno.test("a graph where imports only descend or reach a parent's shared types passes", () => {
  const graph = graphOf({
    "main.ts": ["lib/services.ts"],
    "lib/services.ts": ["lib/capture/service.ts", "lib/http/app_env.ts"],
    "lib/capture/service.ts": ["lib/capture/page/render.ts", "lib/capture/types.ts"],
    "lib/capture/page/render.ts": ["lib/capture/types.ts", "lib/errors.ts"],
    "lib/capture/types.ts": ["lib/capture/request/devices.ts"],
    "lib/http/app_env.ts": ["lib/capture/service.ts"],
  });
  assert.deepEqual(violations(graph), []);
});

Deno.test("two sibling folders importing each other fail, naming both edges", () => {
  const graph = graphOf({
    "lib/capture/request/plan.ts": ["lib/capture/page/viewport.ts"],
    "lib/capture/page/render.ts": ["lib/capture/request/options.ts"],
  });
  const found = violations(graph);
  assert.equal(found.length, 1);
  assert.match(found[0], /^folder cycle: /);
  assert.match(found[0], /lib\/capture\/page\/ -> lib\/capture\/request\//);
  assert.match(found[0], /lib\/capture\/request\/ -> lib\/capture\/page\//);
});

Deno.test("a parent's shared module that imports the sub-folder using it fails", () => {
  const graph = graphOf({
    "lib/capture/types.ts": ["lib/capture/request/options.ts"],
    "lib/capture/request/plan.ts": ["lib/capture/types.ts"],
  });
  const found = violations(graph);
  assert.equal(found.length, 1);
  assert.match(found[0], /lib\/capture\/types\.ts -> lib\/capture\/request\//);
});

Deno.test("a cycle through three folders fails too", () => {
  const graph = graphOf({
    "lib/egress/proxy.ts": ["lib/telemetry/metrics.ts"],
    "lib/telemetry/metrics.ts": ["lib/store/store.ts"],
    "lib/store/store.ts": ["lib/egress/cidr.ts"],
  });
  assert.equal(violations(graph).filter((v) => v.startsWith("folder cycle")).length, 1);
});

Deno.test("lib/ importing the composition root fails, even by a type-only import", () => {
  const graph = graphOf({
    "lib/services.ts": ["lib/capture/service.ts"],
    "lib/capture/service.ts": [],
    "lib/http/app_env.ts": ["lib/services.ts"],
  });
  assert.deepEqual(violations(graph), [
    "lib/http/app_env.ts imports the composition root lib/services.ts",
  ]);
});

Deno.test("lib/ importing a route module fails", () => {
  const graph = graphOf({ "lib/http/router.ts": ["routes/health.ts"] });
  assert.deepEqual(violations(graph), [
    "lib/http/router.ts imports the route module routes/health.ts",
  ]);
});

Deno.test("a bench, a script or a shared fixture importing from tests/ fails; tests may", () => {
  const graph = graphOf({
    "bench/export.ts": ["tests/codecs/fixtures.ts"],
    "testing/app.ts": ["tests/helpers/wait.ts"],
    "tests/codecs/fixtures.ts": [],
    "tests/helpers/wait.ts": [],
    "tests/codecs/presets_test.ts": ["tests/codecs/fixtures.ts", "testing/app.ts"],
  });
  assert.deepEqual(violations(graph).sort(), [
    "bench/export.ts imports tests/codecs/fixtures.ts from tests/ (shared code belongs in testing/)",
    "testing/app.ts imports tests/helpers/wait.ts from tests/ (shared code belongs in testing/)",
  ]);
});

Deno.test("a module cycle inside one folder fails", () => {
  const graph = graphOf({ "lib/a.ts": ["lib/b.ts"], "lib/b.ts": ["lib/a.ts"] });
  assert.deepEqual(violations(graph), ["module cycle: lib/a.ts, lib/b.ts"]);
});
