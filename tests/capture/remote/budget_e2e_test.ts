/** CAPTURE_BYTE_BUDGET on the remote backend: the page goes offline past it, the capture answers. */
import assert from "node:assert/strict";
import { createRemoteCapturer } from "../../../lib/capture/remote/capturer.ts";
import { createMemoryLogger } from "../../../lib/log.ts";
import { decodePng, schemePage, servePages } from "../../../testing/capture_fixtures.ts";
import { startRemoteChromium } from "../../../testing/remote_chromium.ts";
import { publicOnLoopback } from "../../../testing/fleet_proxy.ts";

const BUDGET = 1024 * 1024;

Deno.test("remote: a page over its byte budget is cut off and still captured", async () => {
  await using remote = await startRemoteChromium({
    args: ["--host-resolver-rules=MAP *.test 127.0.0.1"],
  });
  // A chain of 8 scripts of 400 KiB, each loading the next (over the 1 MiB budget): loads in
  // flight may finish, later ones must fail. Green when the whole chain arrived, red when cut.
  const next = `window.loaded = (window.loaded || 0) + 1;
    if (window.loaded < 8) {
      const s = document.createElement("script"); s.src = "/blob?" + window.loaded;
      document.body.append(s);
    }`;
  const big = `${next} /*${"x".repeat(400 * 1024)}*/`;
  const verdict = `<div id="verdict" style="position:fixed;inset:0;background:#ff0000"></div>
    <script src="/blob?0"></script>
    <script>addEventListener("load", () => { if (window.loaded === 8)
      document.getElementById("verdict").style.background = "#00ff00"; });</script>`;
  const internet = servePages({
    "/heavy": () => new Response(schemePage(verdict), { headers: { "content-type": "text/html" } }),
    "/blob": () => new Response(big, { headers: { "content-type": "text/javascript" } }),
  });
  const log = createMemoryLogger();
  const capturer = createRemoteCapturer({
    endpoints: [remote.endpoint],
    timeoutMs: 10_000,
    allowPrivateNetwork: false,
    resolver: (host) => Promise.resolve(host === "public.test" ? ["93.184.215.14"] : []),
    byteBudget: BUDGET,
    dial: publicOnLoopback(),
    log,
  });
  const shoot = (path: string) =>
    capturer.capture({
      url: `http://public.test:${internet.port}${path}`,
      deviceType: "desktop",
      colorScheme: "light",
    });
  try {
    const result = await shoot("/heavy");
    assert.equal(result.targetStatus, 200);
    assert.deepEqual(decodePng(result.image).rgb(10, 10), [255, 0, 0], "cut off before the end");
    const cut = log.lines.filter((l) => l.msg === "capture byte budget exceeded; page cut off");
    assert.equal(cut.length, 1);
    assert.equal(cut[0].budget, BUDGET);
    // The budget is per capture: the next one starts from zero and loads.
    assert.equal((await shoot("/")).targetStatus, 200);
    assert.equal(log.lines.filter((l) => /byte budget/.test(String(l.msg))).length, 1);
  } finally {
    await capturer.close();
    await internet.close();
  }
});
