import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { verifyRenderLink } from "../../lib/http/render_links.ts";
import { linkFromArguments } from "../../scripts/render_link.ts";
import { createRenderApp, RENDER_SECRET } from "../../testing/render_app.ts";
import { pngSize } from "../../testing/png.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

Deno.test("deno task link prints a link that verifies and answers the image", async () => {
  const output = await new Deno.Command("deno", {
    args: [
      "task",
      "--quiet",
      "link",
      "--url",
      "https://example.com/a b",
      "--expires-in",
      "3600",
      "--field",
      "deviceType=mobile",
      "--field",
      'hideSelectors=[".chat"]',
    ],
    cwd: ROOT,
    env: { RENDER_LINK_SECRET: RENDER_SECRET, PUBLIC_BASE_URL: "http://localhost" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const link = new TextDecoder().decode(output.stdout).trim();
  assert.match(link, /^http:\/\/localhost\/api\/render\?url=https%3A%2F%2Fexample\.com%2Fa%20b&/);
  const verdict = await verifyRenderLink(new URL(link).searchParams, {
    secret: RENDER_SECRET,
    now: Date.now(),
  });
  assert.ok(verdict.valid);
  assert.deepEqual(verdict.fields, [
    ["url", "https://example.com/a b"],
    ["deviceType", "mobile"],
    ["hideSelectors", '[".chat"]'],
  ]);
  const t = await createRenderApp();
  try {
    const res = await t.render(link);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "image/png");
    assert.deepEqual(pngSize(new Uint8Array(await res.arrayBuffer())), {
      width: 375,
      height: 667,
    });
  } finally {
    await t.close();
  }
});

Deno.test("the link script refuses a missing secret, expiry or target", async () => {
  const now = Date.UTC(2026, 0, 1);
  const refused = async (args: string[], secret: string | undefined, message: RegExp) =>
    await assert.rejects(linkFromArguments(args, { secret, baseUrl: undefined, now }), message);
  await refused(["--url", "https://example.com", "--expires-in", "60"], undefined, /SECRET/);
  await refused(["--url", "https://example.com", "--expires-in", "60"], "short", /SECRET/);
  await refused(["--url", "https://example.com"], RENDER_SECRET, /--expires-in/);
  await refused(["--expires-in", "60"], RENDER_SECRET, /--url/);
  await refused(["--url", "x", "--expires-in", "60", "--field", "=1"], RENDER_SECRET, /name=value/);
  const link = await linkFromArguments(
    ["--url", "https://example.com", "--expires-in", "60", "--format", "webp"],
    { secret: RENDER_SECRET, baseUrl: "https://shots.example/", now },
  );
  assert.match(
    link,
    /^https:\/\/shots\.example\/api\/render\?url=.*&format=webp&expires=1767225660&/,
  );
});
