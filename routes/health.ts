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
    const capture = c.var.deps.capture.status().map(({ name, state, sandbox, reason }) => ({
      name,
      state,
      ...(sandbox === undefined ? {} : { sandbox }),
      // Only reasons in our own words (a missing permission, a failed self-test) are shown.
      ...(reason ? { reason } : {}),
    }));
    // "advisory": remote captures rely on the fleet's own firewall (docs/boundary.md, remote browsers).
    const boundary = c.var.deps.capture.boundary?.() ?? "enforced";
    return c.json({ status: "ok", store: store.kind, encoder, capture, boundary }, 200);
  });
}
