/**
 * What an agent sees of a long page through /mcp, with the SDK's own client: an overview and
 * full-resolution tiles within the model limits whose pixels are the capture's own regions, the
 * tiles left out brought by a follow-up on the kept capture, a region, the other views, and the
 * exact capture one link away (resources/read and plain HTTP, byte-identical to the capture).
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createCaptureApp, pngOf } from "../../testing/capture_app.ts";
import { decodePng } from "../../testing/capture_fixtures.ts";
import { patternAt, patternedCapturer } from "../../testing/patterned_capturer.ts";
import { assertToolError, mcpSession, textsOf } from "../../testing/mcp.ts";

const PAGE = "https://example.com/long";
const LONG = { width: 1280, height: 20_000 };

type Rect = { x: number; y: number; width: number; height: number };
type Tile = Rect & { tile: number };

function imagesOf(result: CallToolResult) {
  assert.notEqual(result.isError, true, textsOf(result).join("\n"));
  return result.content.flatMap((item) =>
    item.type === "image"
      ? [{ mimeType: item.mimeType, bytes: Buffer.from(item.data, "base64") }]
      : []
  );
}

/** Asserts `png` is exactly the pattern's `rect` (every pixel). */
function assertRegion(png: Uint8Array, rect: Rect) {
  const { width, height, pixels } = decodePng(png);
  assert.deepEqual([width, height], [rect.width, rect.height]);
  const channels = pixels.length / (width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * channels;
      const want = patternAt(rect.x + x, rect.y + y);
      if (pixels[at] !== want[0] || pixels[at + 1] !== want[1] || pixels[at + 2] !== want[2]) {
        assert.fail(
          `pixel (${x}, ${y}) of the tile at ${JSON.stringify(rect)} is not the capture's`,
        );
      }
    }
  }
}

function assertWithinModelLimits(size: { width: number; height: number }) {
  assert.ok(Math.max(size.width, size.height) <= 1568, `${size.width}x${size.height} side`);
  assert.ok(size.width * size.height <= 1_150_000, `${size.width}x${size.height} pixels`);
}

/** Structured content checked against the tool's outputSchema (as tools/list gives it). */
async function assertStructured(
  client: { listTools(): Promise<{ tools: { name: string; outputSchema?: object }[] }> },
  name: string,
  result: CallToolResult,
) {
  const { tools } = await client.listTools();
  const schema = tools.find((t) => t.name === name)!.outputSchema!;
  const ajv = new Ajv2020({ strict: false });
  addFormats.default(ajv);
  const validate = ajv.compile(schema);
  assert.ok(validate(result.structuredContent), JSON.stringify(validate.errors));
  assert.deepEqual(JSON.parse(textsOf(result)[0]), result.structuredContent);
}

Deno.test("a 20,000 px page comes as an overview and full-resolution tiles whose pixels are the capture's", async () => {
  const capture = patternedCapturer(LONG);
  const t = await createCaptureApp({ deps: { capture } });
  try {
    await using mcp = await mcpSession(t.app);
    const result = await mcp.call("capture_screenshot", { url: PAGE, fullPage: true });
    await assertStructured(mcp.client, "capture_screenshot", result);
    const facts = result.structuredContent as {
      width: number;
      height: number;
      view: { mode: string; tiles: Tile[]; tileCount: number; overview: object; next?: object };
      link: { uri: string; url: string; size: number };
    };
    assert.deepEqual([facts.width, facts.height], [LONG.width, LONG.height]);
    assert.equal(facts.view.mode, "tiles");
    assert.equal(facts.view.next, undefined, "the default budget covers the whole page");
    const [overview, ...tiles] = imagesOf(result);
    assert.equal(tiles.length, facts.view.tileCount);
    assert.equal(tiles.length, facts.view.tiles.length);
    const size = decodePng(overview.bytes);
    assertWithinModelLimits(size);
    assert.deepEqual(facts.view.overview, { width: size.width, height: size.height });

    // The tiles cover the capture exactly, in reading order, each within the limits.
    let y = 0;
    for (const [i, tile] of facts.view.tiles.entries()) {
      assert.equal(tile.tile, i + 1);
      assert.deepEqual([tile.x, tile.y, tile.width], [0, y, LONG.width]);
      assertWithinModelLimits(tile);
      assert.equal(tiles[i].mimeType, "image/png");
      assertRegion(tiles[i].bytes, tile);
      y += tile.height;
    }
    assert.equal(y, LONG.height);
    // Each tile's position is said in text before it.
    const said = textsOf(result).filter((text) => text.startsWith("Tile "));
    assert.equal(said.length, tiles.length);
    assert.match(
      said[1],
      new RegExp(`^Tile 2 of ${tiles.length}: x 0 to 1280, y ${facts.view.tiles[1].y} `),
    );

    // The exact capture, one link away: the HTTP capture's bytes over resources/read and HTTP.
    const http = await fetch(`${mcp.base}/api/screenshot`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: PAGE, fullPage: true }),
    });
    const captured = pngOf(await http.json());
    const link = result.content.find((item) => item.type === "resource_link");
    assert.ok(link && link.type === "resource_link");
    assert.equal(link.uri, facts.link.uri);
    assert.equal(link.mimeType, "image/png");
    const read = await mcp.client.readResource({ uri: link.uri });
    const blob = read.contents[0] as { blob: string; mimeType: string };
    assert.equal(blob.mimeType, "image/png");
    assert.deepEqual(Buffer.from(blob.blob, "base64"), Buffer.from(captured));
    const fetched = await fetch(facts.link.url);
    assert.equal(fetched.status, 200);
    assert.deepEqual(new Uint8Array(await fetched.arrayBuffer()), captured);
  } finally {
    await t.close();
  }
});

Deno.test("tiles past the budget come from a follow-up on the kept capture; a region is cut at full resolution", async () => {
  const capture = patternedCapturer(LONG);
  const t = await createCaptureApp({ deps: { capture } });
  try {
    await using mcp = await mcpSession(t.app);
    const first = await mcp.call("capture_screenshot", { url: PAGE, fullPage: true, maxTiles: 5 });
    const facts = first.structuredContent as {
      view: { tiles: Tile[]; tileCount: number; next: { capture: string; tile: number } };
    };
    assert.equal(facts.view.tiles.length, 5);
    assert.equal(imagesOf(first).length, 6, "the overview and five tiles");
    assert.equal(facts.view.next.tile, 6);
    assert.match(textsOf(first).at(-1)!, /Tiles 6 to \d+ .* capture: "shotline:\/\/captures\//);

    const more = await mcp.call("capture_screenshot", { ...facts.view.next, maxTiles: 5 });
    await assertStructured(mcp.client, "capture_screenshot", more);
    const next = more.structuredContent as { view: { tiles: Tile[]; tileCount: number } };
    assert.deepEqual(next.view.tiles.map((tile) => tile.tile), [6, 7, 8, 9, 10]);
    assert.equal(next.view.tileCount, facts.view.tileCount);
    const images = imagesOf(more);
    assert.equal(images.length, 5, "a follow-up sends no overview again");
    for (const [i, tile] of next.view.tiles.entries()) assertRegion(images[i].bytes, tile);

    const region = { x: 100, y: 12_345, width: 700, height: 500 };
    const cut = await mcp.call("capture_screenshot", { capture: facts.view.next.capture, region });
    const [piece] = imagesOf(cut);
    assertRegion(piece.bytes, region);
    assert.equal(capture.jobs.length, 1, "follow-ups render nothing");

    const outside = await mcp.call("capture_screenshot", {
      capture: facts.view.next.capture,
      region: { x: 0, y: 30_000, width: 10, height: 10 },
    });
    await assertToolError(t.app, outside, 400, "invalid_request");
    const gone = await mcp.call("capture_screenshot", { capture: "shotline://captures/nope" });
    await assertToolError(t.app, gone, 404, "not_found");
  } finally {
    await t.close();
  }
});

Deno.test("view overview sends the overview alone, view full one image scaled to what clients take", async () => {
  const capture = patternedCapturer(LONG);
  const t = await createCaptureApp({ deps: { capture } });
  try {
    await using mcp = await mcpSession(t.app);
    const overview = await mcp.call("capture_screenshot", { url: PAGE, view: "overview" });
    assert.equal(imagesOf(overview).length, 1);
    assertWithinModelLimits(decodePng(imagesOf(overview)[0].bytes));
    const full = await mcp.call("capture_screenshot", { url: PAGE, view: "full" });
    await assertStructured(mcp.client, "capture_screenshot", full);
    const [image] = imagesOf(full);
    const scaled = (full.structuredContent as { scaled: { width: number; height: number } }).scaled;
    assert.equal(scaled.height, 8000);
    assert.ok(image.bytes.length > 0);
    const bigger = await mcp.call("capture_screenshot", {
      url: PAGE,
      imageLimits: { maxSide: 4000, maxPixels: 6_000_000 },
    });
    const { view } = bigger.structuredContent as { view: { tiles: Tile[]; tileCount: number } };
    assert.ok(view.tiles.every((tile) => tile.height <= 4000 && tile.width * tile.height <= 6e6));
    assert.equal(view.tileCount, 5);
    const bad = await mcp.call("capture_screenshot", { url: PAGE, view: "everything" });
    await assertToolError(t.app, bad, 400, "invalid_request");
  } finally {
    await t.close();
  }
});

Deno.test("read_page answers with the page's Markdown; includeText adds it to a capture", async () => {
  const t = await createCaptureApp();
  try {
    await using mcp = await mcpSession(t.app);
    const { tools } = await mcp.client.listTools();
    const read = tools.find((tool) => tool.name === "read_page")!;
    for (const field of ["format", "fullPage", "clip", "selector", "quality", "pdf", "recording"]) {
      assert.equal(read.inputSchema.properties?.[field], undefined, field);
    }
    assert.ok(read.inputSchema.properties?.url);
    const result = await mcp.call("read_page", { url: PAGE, colorScheme: "dark" });
    await assertStructured(mcp.client, "read_page", {
      ...result,
      content: result.content.slice(1),
    });
    const [markdown] = textsOf(result);
    assert.match(markdown, /^# Solid page 1\n\nA dark page of https:\/\/example.com\/long/);
    assert.equal((result.structuredContent as { format: string }).format, "markdown");
    assert.equal(t.capture.jobs[0].options?.format, "markdown");
    const refused = await mcp.call("read_page", { url: PAGE, fullPage: true });
    await assertToolError(t.app, refused, 400, "invalid_request");

    const both = await mcp.call("capture_screenshot", { url: PAGE, includeText: true });
    assert.ok(textsOf(both).some((text) => text.startsWith("The page's text as Markdown:")));
    assert.equal(imagesOf(both).length > 0, true);
  } finally {
    await t.close();
  }
});

Deno.test("kept captures are not listed; the template names them; an unknown one is -32002", async () => {
  const t = await createCaptureApp();
  try {
    await using mcp = await mcpSession(t.app);
    assert.deepEqual((await mcp.client.listResources()).resources, []);
    const { resourceTemplates } = await mcp.client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((r) => r.uriTemplate), ["shotline://captures/{id}"]);
    await assert.rejects(
      () => mcp.client.readResource({ uri: "shotline://captures/AAAAAAAAAAAAAAAAAAAAAA" }),
      (error: { code?: number }) => error.code === -32002,
    );
  } finally {
    await t.close();
  }
});

Deno.test("a desktop viewport (1920x1080) is two tiles side by side after the overview", async () => {
  const t = await createCaptureApp({
    deps: { capture: patternedCapturer({ width: 1920, height: 1080 }) },
  });
  try {
    await using mcp = await mcpSession(t.app);
    const result = await mcp.call("capture_screenshot", { url: PAGE });
    const { view } = result.structuredContent as { view: { tiles: Tile[] } };
    assert.deepEqual(view.tiles, [
      { tile: 1, x: 0, y: 0, width: 960, height: 1080 },
      { tile: 2, x: 960, y: 0, width: 960, height: 1080 },
    ]);
    const [, left, right] = imagesOf(result);
    assertRegion(left.bytes, view.tiles[0]);
    assertRegion(right.bytes, view.tiles[1]);
    const small = await createCaptureApp({
      deps: { capture: patternedCapturer({ width: 800, height: 600 }) },
    });
    try {
      await using other = await mcpSession(small.app);
      const whole = await other.call("capture_screenshot", { url: PAGE });
      assert.equal((whole.structuredContent as { view: { mode: string } }).view.mode, "image");
      assertRegion(imagesOf(whole)[0].bytes, { x: 0, y: 0, width: 800, height: 600 });
    } finally {
      await small.close();
    }
  } finally {
    await t.close();
  }
});
