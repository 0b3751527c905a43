/**
 * Oversized and malformed requests over a real socket (Deno.serve on port 0): huge URLs and
 * bodies, deep nesting, invalid UTF-8, wrong content types, broken multipart, and raw TCP with
 * request lines and headers far too large. After each class the server still answers /healthz.
 */
import assert from "node:assert/strict";
import { createCaptureApp } from "../../testing/capture_app.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { within60s } from "../../testing/fault_checks.ts";
import { SCREENSHOT_BODY_LIMIT } from "../../lib/capture/mod.ts";

async function serve() {
  const t = await createCaptureApp();
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, t.app.fetch);
  const base = `http://127.0.0.1:${server.addr.port}`;
  return {
    ...t,
    base,
    port: server.addr.port,
    post: (path: string, body: BodyInit, headers: Record<string, string> = {}) =>
      within60s(path, fetch(`${base}${path}`, { method: "POST", body, headers })),
    async assertHealthy() {
      const res = await within60s("healthz", fetch(`${base}/healthz`));
      assert.equal(res.status, 200);
      assert.equal((await res.json()).status, "ok");
    },
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      await t.close();
    },
  };
}

const JSON_TYPE = { "Content-Type": "application/json" };

Deno.test("past the capture body limit is 413, a 100 KB URL under it is 400", async () => {
  await using s = await serve();
  const huge = JSON.stringify({ url: `https://example.com/${"a".repeat(SCREENSHOT_BODY_LIMIT)}` });
  const res = await s.post("/api/screenshot", huge, JSON_TYPE);
  const body = await assertEnvelope(s.app, res, 413, "invalid_request");
  assert.match(String(body.hint), new RegExp(`${SCREENSHOT_BODY_LIMIT} bytes`));
  const long = JSON.stringify({ url: `https://example.com/${"a".repeat(100 * 1024)}` });
  await assertEnvelope(s.app, await s.post("/api/screenshot", long, JSON_TYPE), 400, "invalid_url");
  assert.equal(s.capture.jobs.length, 0);
  await s.assertHealthy();
});

Deno.test("10 MB of JSON with a Content-Length is 413 without reading it", async () => {
  await using s = await serve();
  const body = new Uint8Array(10 * 1024 * 1024).fill(0x20);
  const res = await s.post("/api/screenshot", body, JSON_TYPE);
  await assertEnvelope(s.app, res, 413, "invalid_request");
  await s.assertHealthy();
});

/** Reads one HTTP response head (and a Content-Length body) from a raw connection. */
async function readResponse(
  conn: Deno.Conn,
): Promise<{ status: number; head: string; body: string }> {
  const decoder = new TextDecoder();
  let text = "";
  const buffer = new Uint8Array(16 * 1024);
  while (true) {
    const end = text.indexOf("\r\n\r\n");
    if (end !== -1) {
      const head = text.slice(0, end);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (text.length - end - 4 >= length) {
        return {
          status: Number(head.split(" ")[1]),
          head,
          body: text.slice(end + 4, end + 4 + length),
        };
      }
    }
    const n = await conn.read(buffer).catch(() => null);
    if (n === null) return { status: 0, head: text, body: "" }; // closed without an answer
    text += decoder.decode(buffer.subarray(0, n), { stream: true });
  }
}

Deno.test("10 MB of chunked JSON is refused with 413 while it is still being sent", async () => {
  await using s = await serve();
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: s.port });
  const total = 10 * 1024 * 1024;
  let sent = 0;
  let sentWhenAnswered = -1;
  try {
    const encoder = new TextEncoder();
    await conn.write(encoder.encode(
      "POST /api/screenshot HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
        "Transfer-Encoding: chunked\r\n\r\n",
    ));
    const answer = readResponse(conn).then((response) => (sentWhenAnswered = sent, response));
    const chunk = concatText(`${(64 * 1024).toString(16)}\r\n`, " ".repeat(64 * 1024), "\r\n");
    while (sent < total && sentWhenAnswered === -1) {
      const wrote = await conn.write(chunk).then(() => true, () => false); // closed: stop
      if (!wrote) break;
      sent += 64 * 1024;
      await new Promise((resolve) => setTimeout(resolve, 0)); // let the answer be read
    }
    const response = await within60s("chunked 10 MB", answer);
    assert.equal(response.status, 413, response.head.slice(0, 200));
    assert.match(response.head, /content-type: application\/json/i);
    assert.equal(JSON.parse(response.body).code, "invalid_request");
    assert.ok(sentWhenAnswered < total, `answered after ${sentWhenAnswered} of ${total} bytes`);
  } finally {
    conn.close();
  }
  await s.assertHealthy();
});

function concatText(...parts: string[]): Uint8Array {
  return new TextEncoder().encode(parts.join(""));
}

Deno.test("deeply nested JSON is 4xx, never a crash or a stack overflow", async () => {
  await using s = await serve();
  // Past the capture body limit: refused before parsing.
  const over = await s.post("/api/screenshot", "[".repeat(SCREENSHOT_BODY_LIMIT + 1), JSON_TYPE);
  await assertEnvelope(s.app, over, 413, "invalid_request");
  // Under the limit the parser and the schema see it: still a plain 400.
  for (const body of ["[".repeat(100_000), `{"url":${"[".repeat(30_000)}${"]".repeat(30_000)}}`]) {
    const res = await s.post("/api/screenshot", body, JSON_TYPE);
    assert.equal(res.status, 400);
    await assertEnvelope(s.app, res, 400, (await res.clone().json()).code);
  }
  assert.equal(s.capture.jobs.length, 0);
  await s.assertHealthy();
});

Deno.test("invalid UTF-8 in a JSON body is 400 invalid_request", async () => {
  await using s = await serve();
  const bytes = Uint8Array.from([
    ...new TextEncoder().encode('{"url":"https://example.com/'),
    0xc3,
    0x28,
    0xff,
    ...new TextEncoder().encode('"}'),
  ]);
  const res = await s.post("/api/screenshot", bytes, JSON_TYPE);
  const body = await assertEnvelope(s.app, res, 400, "invalid_request");
  assert.match(String(body.error), /UTF-8/);
  assert.equal(s.capture.jobs.length, 0);
  await s.assertHealthy();
});

Deno.test("wrong content types and multipart without a boundary are 400 invalid_request", async () => {
  await using s = await serve();
  const json = JSON.stringify({ url: "https://example.com/" });
  for (
    const headers of [
      { "Content-Type": "text/plain" },
      { "Content-Type": "application/x-www-form-urlencoded" },
      { "Content-Type": "multipart/form-data" },
      {} as Record<string, string>,
    ]
  ) {
    const res = await s.post("/api/screenshot", new TextEncoder().encode(json), headers);
    await assertEnvelope(s.app, res, 400, "invalid_request");
  }
  const form = '--b\r\nContent-Disposition: form-data; name="format"\r\n\r\npng\r\n--b--\r\n';
  for (const type of ["multipart/form-data", "multipart/form-data; boundary=", "text/plain"]) {
    const res = await s.post("/api/export", form, { "Content-Type": type });
    await assertEnvelope(s.app, res, 400, "invalid_request");
  }
  assert.equal(s.capture.jobs.length, 0);
  await s.assertHealthy();
});

/** Sends raw bytes on a fresh connection; the status of the answer, or 0 if it just closed. */
async function raw(port: number, request: string | Uint8Array): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const bytes = typeof request === "string" ? new TextEncoder().encode(request) : request;
    await conn.write(bytes).catch(() => 0); // the server may close before reading it all
    return (await within60s("raw request", readResponse(conn))).status;
  } finally {
    conn.close();
  }
}

Deno.test("request lines and headers far too large are refused and the server keeps serving", async () => {
  await using s = await serve();
  const cases: [string, string][] = [
    ["100 KB request line", `GET /${"a".repeat(100 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`],
    ["1 MB request line", `GET /healthz?${"a".repeat(1024 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`],
    [
      "one 100 KB header",
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"b".repeat(100 * 1024)}\r\n\r\n`,
    ],
    [
      "5000 headers",
      `GET /healthz HTTP/1.1\r\nHost: x\r\n${
        Array.from({ length: 5000 }, (_, i) => `X-H${i}: v\r\n`).join("")
      }\r\n`,
    ],
  ];
  for (const [what, request] of cases) {
    const status = await raw(s.port, request);
    // Deno's HTTP layer answers 400 here (431/414 would do) or drops the connection; never 2xx/5xx.
    assert.ok([0, 400, 413, 414, 431].includes(status), `${what}: ${status}`);
    await s.assertHealthy();
  }
});

Deno.test("malformed HTTP framing is refused and the server keeps serving", async () => {
  await using s = await serve();
  const cases: [string, string | Uint8Array][] = [
    ["binary garbage", Uint8Array.from({ length: 512 }, (_, i) => (i * 7919) & 0xff)],
    ["no version", "GET /healthz\r\n\r\n"],
    [
      "bad content-length",
      "POST /api/screenshot HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
    ],
    [
      "negative content-length",
      "POST /api/screenshot HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
    ],
    [
      "two content-lengths",
      "POST /api/screenshot HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 40\r\n\r\n{}",
    ],
    [
      "bad chunk size",
      "POST /api/screenshot HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ],
    ["NUL in a header", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n"],
    ["space before colon", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-A : b\r\n\r\n"],
  ];
  for (const [what, request] of cases) {
    const status = await raw(s.port, request);
    assert.ok(status === 0 || (status >= 400 && status < 500), `${what}: ${status}`);
    await s.assertHealthy();
  }
  assert.equal(s.capture.jobs.length, 0);
});

Deno.test("a body that breaks off mid-stream is 400, not a logged 500", async () => {
  await using s = await serve();
  const head = (path: string, type: string, framing: string) =>
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\n${framing}\r\n\r\n`;
  const json = "application/json";
  const form = "multipart/form-data; boundary=b";
  const chunked = "Transfer-Encoding: chunked";
  // [what is sent first, what follows once the app reads the body (null: half-close)]
  const cases: [string, string | null][] = [
    [`${head("/api/screenshot", json, chunked)}3\r\n{"u\r\n`, "zz\r\n"],
    [`${head("/api/export", form, chunked)}5\r\n--b\r\n\r\n`, "zz\r\n"],
    [`${head("/api/screenshot", json, chunked)}3\r\n{"u\r\n`, null],
    [`${head("/api/screenshot", json, "Content-Length: 100")}{"url":`, null],
    [`${head("/api/export", form, "Content-Length: 900")}--b\r\n`, null],
  ];
  for (const [first, then] of cases) {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: s.port });
    try {
      await conn.write(new TextEncoder().encode(first));
      // Give the app the request first, so the failure happens while it reads the body.
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (then) await conn.write(new TextEncoder().encode(then));
      else await conn.closeWrite();
      const response = await within60s(first.slice(0, 30), readResponse(conn));
      assert.ok([0, 400].includes(response.status), `${first.slice(0, 30)}: ${response.status}`);
    } finally {
      conn.close();
    }
  }
  await s.assertHealthy();
  const statuses = s.log.lines.filter((l) => l.msg === "request").map((l) => l.status);
  assert.ok(!statuses.includes(500), `statuses logged: ${statuses}`);
  assert.deepEqual(s.log.lines.filter((l) => l.level === "error"), []);
});
