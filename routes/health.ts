import { createRouter } from "../lib/http/router.ts";

/** GET /healthz: liveness plus which store and backends this instance runs with. */
export function createHealthRouter() {
  return createRouter().get("/healthz", (c) => {
    const { store } = c.var.deps;
    c.header("Cache-Control", "no-store");
    const encoder = c.var.deps.exporter.encoder; // "sharp" or "wasm" (POST /api/export)
    const capture = c.var.deps.capture.status(); // capture backends and their state
    // "advisory": remote captures rely on the fleet's own firewall (README, Remote browsers).
    const boundary = c.var.deps.capture.boundary?.() ?? "enforced";
    return c.json({ status: "ok", store: store.kind, encoder, capture, boundary }, 200);
  });
}
