import { createRouter } from "../lib/http/router.ts";

/**
 * GET /healthz and GET /readyz. Anyone can call them, so backends appear by name, state and
 * sandbox only: an endpoint's host and port or an error text would tell an attacker where the
 * browsers are and what breaks them.
 *
 * /healthz is liveness: 200 while the process answers, whatever its backends do (restarting a
 * live process would not bring Chromium back sooner). /readyz is readiness: 200 only while at
 * least one capture backend is ready, 503 otherwise, "starting" included, so a load balancer or
 * HEALTHCHECK waits for the first browser; the start-up grace is the orchestrator's (the
 * Dockerfile's --start-period), sized for a Chromium launch and its boundary self-test.
 */
export function createHealthRouter() {
  return createRouter()
    .get("/healthz", (c) => {
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
      // "advisory": remote captures rely on the fleet's own firewall (docs/boundary.md).
      const boundary = c.var.deps.capture.boundary?.() ?? "enforced";
      // Where jobs queue and where their results go (kinds only, never an address).
      const jobs = { queue: c.var.deps.jobs.queue.kind, results: c.var.deps.objectStorage.kind };
      return c.json({ status: "ok", store: store.kind, encoder, capture, boundary, jobs }, 200);
    })
    .get("/readyz", (c) => {
      c.header("Cache-Control", "no-store");
      const capture = c.var.deps.capture.status().map(({ name, state }) => ({ name, state }));
      if (capture.some((backend) => backend.state === "ready")) {
        return c.json({ status: "ready", capture }, 200);
      }
      const starting = capture.some((backend) => backend.state === "starting");
      const reason = starting
        ? "No capture backend is ready yet: the browser is starting."
        : "No capture backend is ready: every backend is down.";
      return c.json({ status: "not_ready", reason, capture }, 503);
    });
}
