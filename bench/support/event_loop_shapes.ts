/**
 * The request shapes of bench/event_loop.ts: for each route that parses a body, the largest body
 * its limit lets through, built to cost the most per byte (many small values, long batches, wide
 * records, deep nesting), plus the shapes of the original report (8,000 pings, 48 KiB of
 * tools/list).
 */
import { base64Length } from "../../lib/bytes.ts";
import { SCREENSHOT_BODY_LIMIT } from "../../lib/capture/request/options.ts";

export interface Shape {
  name: string;
  path: string;
  headers: Record<string, string>;
  body: () => Uint8Array<ArrayBuffer>;
}

// The defaults of docs/configuration.md: MAX_UPLOAD_BYTES 25 MiB, and /mcp takes its base64 plus
// 64 KiB (app.ts).
const MAX_UPLOAD_BYTES = 26_214_400;
const MCP_BODY_LIMIT = base64Length(MAX_UPLOAD_BYTES) + 64 * 1024;
// Under each limit by a margin, so the body reaches the handler.
const MARGIN = 4096;

const encoder = new TextEncoder();
const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};
const JSON_HEADERS = { "content-type": "application/json" };

/** A JSON array of `item(i)` for as many i as fit in `bytes`. */
function arrayUpTo(bytes: number, item: (i: number) => string): string {
  const parts: string[] = [];
  let size = 2;
  for (let i = 0;; i++) {
    const next = item(i);
    if (size + next.length + 1 > bytes) break;
    parts.push(next);
    size += next.length + 1;
  }
  return `[${parts.join(",")}]`;
}

/** An array of `count` items (a reported size rather than a byte budget). */
function arrayOf(count: number, item: (i: number) => string): string {
  return `[${Array.from({ length: count }, (_, i) => item(i)).join(",")}]`;
}

const ping = (i: number) => `{"jsonrpc":"2.0","id":${i},"method":"ping"}`;
const toolsList = (i: number) => `{"jsonrpc":"2.0","id":${i},"method":"tools/list"}`;
const initialize = (i: number) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: i,
    method: "initialize",
    params: {
      protocolVersion: "2025-03-26",
      capabilities: {},
      clientInfo: { name: "bench", version: "1" },
    },
  });

function mcp(name: string, text: () => string, version?: string): Shape {
  const headers = version ? { ...MCP_HEADERS, "mcp-protocol-version": version } : MCP_HEADERS;
  return { name, path: "/mcp", headers, body: () => encoder.encode(text()) };
}

function capture(name: string, fields: () => string): Shape {
  // The url first, so a body that gets past the schema is a valid capture request.
  const body = () => encoder.encode(`{"url":"https://example.com/",${fields()}}`);
  return { name, path: "/api/screenshot", headers: JSON_HEADERS, body };
}

const captureRoom = SCREENSHOT_BODY_LIMIT - MARGIN;
const mcpRoom = MCP_BODY_LIMIT - MARGIN;

/** Every shape, by name. */
export const SHAPES: Shape[] = [
  // The floor: what a loaded machine's scheduling alone adds to the timer and /healthz.
  {
    name: "baseline: an empty capture body",
    path: "/api/screenshot",
    headers: JSON_HEADERS,
    body: () => encoder.encode("{}"),
  },
  mcp("mcp ping batch, 8000 (reported)", () => arrayOf(8000, ping)),
  mcp("mcp ping batch, 12000 (reported)", () => arrayOf(12000, ping)),
  mcp("mcp tools/list batch, 48 KiB (reported)", () => arrayUpTo(48 * 1024, toolsList)),
  mcp("mcp tools/list batch, 20", () => arrayOf(20, toolsList)),
  mcp("mcp ping batch, at the body limit", () => arrayUpTo(mcpRoom, ping)),
  mcp("mcp ping batch, at the limit, 2025-06-18", () => arrayUpTo(mcpRoom, ping), "2025-06-18"),
  mcp("mcp initialize batch, at the body limit", () => arrayUpTo(mcpRoom, initialize)),
  mcp("mcp tools/list batch, at the body limit", () => arrayUpTo(mcpRoom, toolsList)),
  mcp(
    "mcp one ping, params of small objects at the limit",
    () =>
      `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":${arrayUpTo(mcpRoom, () => "{}")}}}`,
  ),
  mcp(
    "mcp one ping, params of numbers at the limit",
    () =>
      `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":${arrayUpTo(mcpRoom, () => "0")}}}`,
  ),
  mcp("mcp export_image, base64 at the limit", () =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "export_image",
        arguments: {
          image: "A".repeat(mcpRoom - 200),
          format: "png",
          qualityPreset: "high",
        },
      },
    })),
  capture(
    "capture blockRequests, many patterns",
    () => `"blockRequests":${arrayUpTo(captureRoom - 100, (i) => `"*${i}*"`)}`,
  ),
  capture(
    "capture blockRequests, 50 starry patterns",
    () => `"blockRequests":${arrayOf(50, (i) => `"*${"a*".repeat(250)}${i}"`)}`,
  ),
  capture(
    "capture hideSelectors, many",
    () => `"hideSelectors":${arrayUpTo(captureRoom - 100, () => '"a"')}`,
  ),
  capture(
    "capture removeSelectors, many",
    () => `"removeSelectors":${arrayUpTo(captureRoom - 100, () => '"a"')}`,
  ),
  capture("capture styles, whole body", () => `"styles":"${"a{}".repeat(captureRoom / 3 - 40)}"`),
  capture("capture headers, many", () => {
    const record = arrayUpTo(captureRoom - 100, (i) => `"h${i}":"v"`);
    return `"headers":{${record.slice(1, -1)}}`;
  }),
  capture(
    "capture cookies, many",
    () => `"cookies":${arrayUpTo(captureRoom - 100, (i) => `{"name":"c${i}","value":"v"}`)}`,
  ),
  {
    name: "capture url, whole body",
    path: "/api/screenshot",
    headers: JSON_HEADERS,
    body: () => encoder.encode(`{"url":"https://example.com/${"a".repeat(captureRoom - 100)}"}`),
  },
  capture("capture unknown field, deep nesting", () => {
    const depth = Math.floor((captureRoom - 100) / 2);
    return `"extra":${"[".repeat(depth)}${"]".repeat(depth)}`;
  }),
  capture("capture unknown field, wide record", () => {
    const record = arrayUpTo(captureRoom - 100, (i) => `"k${i}":0`);
    return `"extra":{${record.slice(1, -1)}}`;
  }),
  {
    name: "export multipart, one 25 MiB part",
    path: "/api/export",
    headers: { "content-type": "multipart/form-data; boundary=b" },
    body: () => {
      const head = '--b\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\n\r\n';
      const tail = '\r\n--b\r\nContent-Disposition: form-data; name="format"\r\n\r\npng\r\n' +
        '--b\r\nContent-Disposition: form-data; name="qualityPreset"\r\n\r\nhigh\r\n--b--\r\n';
      const size = MAX_UPLOAD_BYTES - MARGIN - head.length - tail.length;
      return encoder.encode(head + "x".repeat(size) + tail);
    },
  },
  {
    name: "export multipart, many parts at the limit",
    path: "/api/export",
    headers: { "content-type": "multipart/form-data; boundary=b" },
    body: () => {
      const part = '--b\r\nContent-Disposition: form-data; name="x"\r\n\r\nv\r\n';
      const count = Math.floor((MAX_UPLOAD_BYTES - MARGIN) / part.length);
      return encoder.encode(part.repeat(count) + "--b--\r\n");
    },
  },
];
