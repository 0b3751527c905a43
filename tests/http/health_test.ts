import assert from "node:assert/strict";
import { createTestApp } from "../helpers/app.ts";

const FLEET = "ws://127.0.0.1:9/devtools/browser/none";

async function boundaryOf(env: Record<string, string>): Promise<string> {
  const t = await createTestApp({ env });
  try {
    const res = await t.app.request("/healthz");
    assert.equal(res.status, 200);
    const body = await res.json();
    // The proxy's address never shows in /healthz.
    const listen = env.EGRESS_PROXY_LISTEN;
    if (listen) assert.ok(!JSON.stringify(body).includes(listen.split(":")[1]));
    return body.boundary;
  } finally {
    await t.close();
  }
}

Deno.test("/healthz says whether remote captures are inside the network boundary", async () => {
  // The local browser's own proxy: enforced.
  assert.equal(await boundaryOf({}), "enforced");
  // A remote fleet without EGRESS_PROXY_URL depends on the fleet's firewall.
  assert.equal(await boundaryOf({ BROWSER_WS_ENDPOINT: FLEET }), "advisory");
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = probe.addr.port;
  probe.close();
  assert.equal(
    await boundaryOf({
      BROWSER_WS_ENDPOINT: FLEET,
      EGRESS_PROXY_LISTEN: `127.0.0.1:${port}`,
      EGRESS_PROXY_URL: `http://127.0.0.1:${port}`,
    }),
    "enforced",
  );
});
