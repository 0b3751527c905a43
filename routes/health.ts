import { SELF_TEST_FAILED } from "../lib/capture/local/self_test.ts";
import { createRouter } from "../lib/http/router.ts";

/**
 * GET /healthz: liveness plus which store and backends this instance runs with. Anyone can call
 * it, so backends appear by name, state and sandbox only: an endpoint's host and port or an
 * error text would tell an attacker where the browsers are and what breaks them.
 */
export function createHealthRouter() {
  return createRouter().get("/healthz", (c) => {
    const { store } = c.var.deps;
    c.header("Cache-Control", "no-store");
    const encoder = c.var.deps.exporter.encoder; // "sharp" or "wasm" (POST /api/export)
    const capture = c.var.deps.capture.status().map(({ name, state, sandbox, detail }) => ({
      name,
      state,
      ...(sandbox === undefined ? {} : { sandbox }),
      // A failed boundary self-test is our own fixed text, and the reason operators must see.
      ...(detail?.startsWith(SELF_TEST_FAILED) ? { reason: detail } : {}),
    }));
    // "advisory": remote captures rely on the fleet's own firewall (README, Remote browsers).
    const boundary = c.var.deps.capture.boundary?.() ?? "enforced";
    return c.json({ status: "ok", store: store.kind, encoder, capture, boundary }, 200);
  });
}
