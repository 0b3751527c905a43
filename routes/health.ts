import { createRouter } from "../lib/router.ts";

/** GET /healthz: liveness plus which store and backends this instance runs with. */
export function createHealthRouter() {
  return createRouter().get("/healthz", (c) => {
    const { store } = c.var.deps;
    c.header("Cache-Control", "no-store");
    return c.json({ status: "ok", store: store.kind }, 200);
  });
}
