import assert from "node:assert/strict";
import { isServableMediaType, parseMediaUrl } from "../../lib/media/allowlist.ts";
import { ApiError } from "../../lib/errors.ts";
import { assertEnvelope } from "../helpers/envelope.ts";
import { appWithUpstreams } from "../fixtures/loopback_upstream.ts";
import { startMediaUpstream } from "../fixtures/media_upstream.ts";

/** URLs that must never be fetched, each with the trick it tries. */
const FORBIDDEN: [string, string][] = [
  ["https://pbs.twimg.com.evil.test/media/x.jpg", "allowlisted name as a prefix"],
  ["https://pbs.twimg.com@evil.test/media/x.jpg", "allowlisted name as userinfo"],
  ["https://evil.test/?u=pbs.twimg.com", "allowlisted name in the query"],
  ["https://evil.test/pbs.twimg.com/x.jpg", "allowlisted name in the path"],
  ["https://x.pbs.twimg.com/media/x.jpg", "subdomain of an allowlisted host"],
  ["https://twimg.com/media/x.jpg", "parent domain"],
  ["https://evilpbs.twimg.com/x.jpg", "suffix match"],
  ["https://pbs.twimg.com:8443/media/x.jpg", "explicit port"],
  ["https://pbs.twimg.com:80/media/x.jpg", "explicit non-default port"],
  ["https://pbs.twimg.com./media/x.jpg", "trailing dot"],
  ["https://user:pass@pbs.twimg.com/media/x.jpg", "credentials on the right host"],
  ["https://user@pbs.twimg.com/media/x.jpg", "username only"],
  ["http://pbs.twimg.com/media/x.jpg", "plain http"],
  ["ftp://pbs.twimg.com/media/x.jpg", "other scheme"],
  ["javascript:alert(1)//pbs.twimg.com", "script URL"],
  ["data:image/png;base64,AAAA", "data URL"],
  ["https://127.0.0.1/media/x.jpg", "IP address"],
  ["https://evil.test\\@pbs.twimg.com/x.jpg", "backslash confusion (host is evil.test)"],
  ["https://pbs.twimg.co/x.jpg", "look-alike"],
  ["https://pbs.twimg.com%2eevil.test/x.jpg", "encoded dot"],
];

const ALLOWED: [string, string, string][] = [
  ["https://pbs.twimg.com/media/x.jpg?name=small", "pbs.twimg.com", "plain"],
  ["https://PBS.TWIMG.COM/media/x.jpg", "pbs.twimg.com", "uppercase is the same host"],
  ["https://pbs.twimg.com:443/media/x.jpg", "pbs.twimg.com", "the default port normalises away"],
  ["https://abs.twimg.com/emoji/v2/72x72/1f600.png", "abs.twimg.com", "assets host"],
  ["https://ton.twimg.com/media/x.jpg", "ton.twimg.com", "uploads host"],
  ["https://video.twimg.com/ext_tw_video/1/pu/vid/x.mp4", "video.twimg.com", "video host"],
  ["https://pbs%2etwimg.com/x.jpg", "pbs.twimg.com", "percent-encoded dots decode to the host"],
  ["https://pbs.twimg.com\\@evil.test/x.jpg", "pbs.twimg.com", "a backslash starts the path"],
  ["https://pbs.twimg.com//evil.test/x.jpg", "pbs.twimg.com", "a double slash is still path"],
];

Deno.test("the allowlist matches exactly four hosts after URL normalisation", () => {
  for (const [raw, trick] of FORBIDDEN) {
    assert.throws(() => parseMediaUrl(raw), (error: unknown) => {
      assert.ok(error instanceof ApiError, trick);
      assert.equal(error.status, 403, `${trick}: ${raw}`);
      assert.equal(error.code, "forbidden_domain", trick);
      return true;
    });
  }
  for (const [raw, host, why] of ALLOWED) {
    assert.equal(parseMediaUrl(raw).host, host, why);
  }
});

Deno.test("tricks are 403 forbidden_domain and never reach any upstream", async () => {
  const upstream = startMediaUpstream();
  const t = await appWithUpstreams({ media: upstream.origin });
  try {
    for (const [raw, trick] of FORBIDDEN) {
      const res = await t.app.request(`/api/image-proxy?url=${encodeURIComponent(raw)}`);
      assert.equal(res.headers.get("access-control-allow-origin"), "*", trick);
      const body = await assertEnvelope(t.app, res, 403, "forbidden_domain");
      assert.match(String(body.hint), /pbs\.twimg\.com/);
    }
    assert.equal(upstream.seen.length, 0);
  } finally {
    await t.close();
    await upstream.close();
  }
});

Deno.test("a missing url is 400 invalid_request, an unparseable one 400 invalid_url", async () => {
  const t = await appWithUpstreams({});
  try {
    for (const query of ["", "?url=", "?other=1"]) {
      const res = await t.app.request(`/api/image-proxy${query}`);
      await assertEnvelope(t.app, res, 400, "invalid_request");
    }
    for (
      const raw of ["not a url", "evil.test/?u=pbs.twimg.com", "//pbs.twimg.com/x.jpg", "https://"]
    ) {
      const res = await t.app.request(`/api/image-proxy?url=${encodeURIComponent(raw)}`);
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
