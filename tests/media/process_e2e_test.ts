/**
 * The real main.ts (as `deno task start` runs it) cutting proxied streams: clients that leave a
 * video mid-way, and a media host breaking off mid-body, leave one JSON access-log line per
 * request and nothing else on stdout or stderr (on the direct path and on the guarded one). The
 * media hosts are testing/tls_media_hosts.ts: real TLS for the real host names behind a CONNECT
 * proxy, reached through the HTTPS_PROXY and DENO_CERT that the service's fetch honours.
 */
import assert from "node:assert/strict";
import { startService } from "../../testing/service_process.ts";
import { spawnJsonChild } from "../../testing/json_child.ts";
import type { UpstreamInfo } from "../../testing/tls_media_hosts.ts";

Deno.test("streams cut by clients or by the media host leave JSON log lines and nothing on stderr", async () => {
  const hosts = await spawnJsonChild<UpstreamInfo>("testing/tls_media_hosts.ts");
  try {
    await using service = await startService({
      KV_PATH: ":memory:",
      HTTPS_PROXY: `http://127.0.0.1:${hosts.info.proxyPort}`,
      DENO_CERT: hosts.info.caPath,
    });
    const video = encodeURIComponent("https://video.twimg.com/media/cut.mp4?mb=64");
    const CUTS = 5;
    for (let i = 0; i < CUTS; i++) {
      const client = new AbortController();
      const res = await fetch(`${service.base}/api/image-proxy?url=${video}`, {
        signal: client.signal,
      });
      assert.equal(res.status, 200);
      const reader = res.body!.getReader();
      let received = 0;
      while (received < 1024 * 1024) received += (await reader.read()).value?.byteLength ?? 0;
      client.abort();
      await reader.closed.catch(() => {});
    }
    // A media host breaking off mid-body: the client sees a cut download, the log one line.
    const broken = encodeURIComponent("https://video.twimg.com/media/reset.mp4");
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${service.base}/api/image-proxy?url=${broken}`);
      assert.equal(res.status, 200);
      await assert.rejects(res.arrayBuffer());
    }
    // A whole small file still goes through afterwards.
    const photo = encodeURIComponent("https://pbs.twimg.com/media/photo.jpg");
    const whole = await fetch(`${service.base}/api/image-proxy?url=${photo}`);
    assert.equal((await whole.arrayBuffer()).byteLength, 1024 * 1024);
    await service.waitForLine((l) =>
      l.path === "/api/image-proxy" && l.mediaHost === "pbs.twimg.com"
    );
    assert.equal((await service.stop()).code, 0);
    const proxied = service.lines.filter((l) =>
      l.msg === "request" && l.path === "/api/image-proxy"
    );
    assert.equal(proxied.length, CUTS + 3 + 1);
    assert.ok(proxied.every((l) => l.mediaPath === "direct"));
    assert.deepEqual(service.output, [], "nothing but JSON lines, and nothing on stderr");
  } finally {
    await hosts.stop();
  }
});
