/**
 * The network boundary in remote mode, with real packets: fleet_boundary_netns.ts runs inside a
 * network namespace created here (`unshare -n`, root only). Where namespaces are not allowed the
 * test is skipped with the reason.
 */
import assert from "node:assert/strict";
import { netnsUnavailable, testInNewNetns } from "../../testing/netns.ts";

const unavailable = netnsUnavailable();
if (unavailable) console.warn(`fleet boundary test skipped: ${unavailable}`);

Deno.test({
  name: "remote mode: a fleet Chromium with full network access reaches nothing forbidden",
  ignore: unavailable !== null,
  async fn() {
    const inner = new URL("./fleet_boundary_netns.ts", import.meta.url).pathname;
    const { code, output } = await testInNewNetns(inner);
    assert.equal(code, 0, `inside the namespace:\n${output.slice(-6000)}`);
    assert.match(output, /ok \| 1 passed/);
  },
});
