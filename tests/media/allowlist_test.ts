import assert from "node:assert/strict";
import { isServableMediaType, parseMediaUrl } from "../../lib/media/allowlist.ts";
import { MediaFailure } from "../../lib/media/failure.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { appWithUpstreams } from "../../testing/loopback_upstream.ts";
import { MEDIA_EQUIVALENTS, MEDIA_TRICKS, MEDIA_UNPARSEABLE } from "../../testing/ssrf_corpus.ts";

Deno.test("the allowlist matches exactly four hosts after URL normalisation", () => {
  // The HTTP answers (403 forbidden_domain, 400 invalid_url) are the route's: tested through it.
  const refusal = (raw: string, kind: string, trick: string) =>
    assert.throws(() => parseMediaUrl(raw), (error: unknown) => {
      assert.ok(error instanceof MediaFailure, trick);
      assert.equal(error.detail.kind, kind, `${trick}: ${raw}`);
      return true;
    });
  for (const [raw, trick] of MEDIA_TRICKS) refusal(raw, "forbidden_host", trick);
  for (const [raw, trick] of MEDIA_UNPARSEABLE) refusal(raw, "invalid_url", trick);
  for (const [raw, host, why] of MEDIA_EQUIVALENTS) {
    assert.equal(parseMediaUrl(raw).host, host, why);
  }
});

Deno.test("a missing url is 400 invalid_request, an unparseable one 400 invalid_url", async () => {
  const t = await appWithUpstreams({});
  try {
    for (const query of ["", "?url=", "?other=1"]) {
      const res = await t.app.request(`/api/image-proxy${query}`);
      await assertEnvelope(t.app, res, 400, "invalid_request");
    }
    for (const [raw, trick] of MEDIA_UNPARSEABLE) {
      const res = await t.app.request(`/api/image-proxy?url=${encodeURIComponent(raw)}`);
      assert.equal(res.status, 400, trick);
      await assertEnvelope(t.app, res, 400, "invalid_url");
    }
  } finally {
    await t.close();
  }
});

Deno.test("only image (not SVG), video and, from the video host, audio types are served", () => {
  const cases: [string | null, string, boolean][] = [
    ["image/png", "pbs.twimg.com", true],
    ["image/jpeg; charset=binary", "pbs.twimg.com", true],
    ["IMAGE/WEBP", "abs.twimg.com", true],
    ["video/mp4", "video.twimg.com", true],
    ["video/mp4", "ton.twimg.com", true],
    ["audio/mp4", "video.twimg.com", true],
    ["audio/mp4", "pbs.twimg.com", false],
    ["image/svg+xml", "pbs.twimg.com", false],
    ["image/svg", "abs.twimg.com", false],
    ["text/html", "pbs.twimg.com", false],
    ["application/javascript", "abs.twimg.com", false],
    ["text/javascript", "abs.twimg.com", false],
    ["application/octet-stream", "video.twimg.com", false],
    ["image/", "pbs.twimg.com", false],
    ["image", "pbs.twimg.com", false],
    ["", "pbs.twimg.com", false],
    [null, "pbs.twimg.com", false],
  ];
  for (const [type, host, servable] of cases) {
    assert.equal(isServableMediaType(type, host as never), servable, `${type} from ${host}`);
  }
});
