/**
 * What one POST /mcp may carry: no batches under MCP 2025-06-18 and later, at most 20 messages
 * for older clients, bounded values and nesting, all refused with JSON-RPC's -32600 before any
 * message is dispatched; and the answers of one POST bounded in bytes.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { boundAnswers } from "../../lib/mcp/answer_budget.ts";
import { MAX_BATCH_MESSAGES } from "../../lib/mcp/batch.ts";
import { createCaptureApp } from "../../testing/capture_app.ts";

type CaptureApp = Awaited<ReturnType<typeof createCaptureApp>>;

/** A JSON-RPC POST to /mcp, with an MCP-Protocol-Version header when `version` is given. */
function rpc(t: CaptureApp, body: unknown, version?: string) {
  return t.app.request("/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(version ? { "mcp-protocol-version": version } : {}),
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** `count` tools/call messages of get_post (each one a dispatch the access log lists). */
function postCalls(count: number) {
  return Array.from({ length: count }, (_, i) => ({
    jsonrpc: "2.0",
    id: i + 1,
    method: "tools/call",
    params: { name: "get_post", arguments: { id: "not-a-number" } },
  }));
}

/** Asserts a 400 JSON-RPC error for the whole POST with code -32600; returns its message. */
async function assertRefused(res: Response): Promise<string> {
  assert.equal(res.status, 400);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  const answer = await res.json();
  assert.equal(answer.jsonrpc, "2.0");
  assert.equal(answer.id, null);
  assert.equal(answer.error.code, ErrorCode.InvalidRequest);
  return answer.error.message;
}

/** The tools the access log line of the last POST /mcp lists as called (none: []). */
function dispatchedTools(t: CaptureApp): unknown[] {
  const lines = t.log.lines.filter((l) => l.path === "/mcp" && l.msg === "request");
  return (lines.at(-1)?.tools as unknown[] | undefined) ?? [];
}

Deno.test("under MCP 2025-06-18 and later a batch is refused, one message per POST is answered", async () => {
  const t = await createCaptureApp();
  try {
    for (const version of ["2025-06-18", "2025-11-25"]) {
      const message = await assertRefused(await rpc(t, postCalls(1), version));
      assert.match(message, /2025-06-18 and later have no JSON-RPC batches/);
      assert.deepEqual(dispatchedTools(t), [], "nothing dispatched");
      const single = await rpc(t, postCalls(1)[0], version);
      assert.equal(single.status, 200);
      assert.match(single.headers.get("content-type") ?? "", /^application\/json/);
      assert.equal((await single.json()).result.isError, true, "the call ran");
    }
    // A batch that initialises at such a revision negotiates it: refused the same way.
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    };
    assert.match(await assertRefused(await rpc(t, [initialize])), /no JSON-RPC batches/);
  } finally {
    await t.close();
  }
});

Deno.test("older clients get batches of 20; the 21st message refuses the batch before any dispatch", async () => {
  const t = await createCaptureApp();
  try {
    for (const version of [undefined, "2025-03-26", "2024-11-05"]) {
      const ok = await rpc(t, postCalls(MAX_BATCH_MESSAGES), version);
      assert.equal(ok.status, 200, `version ${version}`);
      assert.match(ok.headers.get("content-type") ?? "", /^application\/json/);
      const answers = await ok.json();
      assert.equal(answers.length, 20);
      assert.equal(dispatchedTools(t).length, 20);

      const over = await assertRefused(await rpc(t, postCalls(MAX_BATCH_MESSAGES + 1), version));
      assert.match(over, /a batch may hold at most 20 messages/);
      assert.deepEqual(dispatchedTools(t), [], "refused before any message was dispatched");
    }
    // The reported batch (8,000 pings) is refused by the same rule, never parsed message by message.
    const pings = Array.from(
      { length: 8000 },
      (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" }),
    );
    assert.match(await assertRefused(await rpc(t, pings)), /at most 20 messages/);
  } finally {
    await t.close();
  }
});

Deno.test("a batch of 20 tools/list is answered whole", async () => {
  const t = await createCaptureApp();
  try {
    const lists = Array.from(
      { length: 20 },
      (_, i) => ({ jsonrpc: "2.0", id: i, method: "tools/list" }),
    );
    const res = await rpc(t, lists);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    const answers = await res.json();
    assert.equal(answers.length, 20);
    for (const answer of answers) assert.equal(answer.result.tools.length, 6);
  } finally {
    await t.close();
  }
});

Deno.test("a message past 10,000 values or 32 levels of nesting gets -32600, not the envelope", async () => {
  const t = await createCaptureApp();
  try {
    const wide = {
      jsonrpc: "2.0",
      id: 1,
      method: "ping",
      params: { x: new Array(10_001).fill(0) },
    };
    assert.match(await assertRefused(await rpc(t, wide)), /at most 10000 JSON values/);
    const deep = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":${"[".repeat(40)}${
      "]".repeat(40)
    }}}`;
    assert.match(await assertRefused(await rpc(t, deep)), /at most 32 levels deep/);
    // Within both, the same message is answered.
    const fine = await rpc(t, { ...wide, params: { x: new Array(1000).fill(0) } });
    assert.equal(fine.status, 200);
    assert.match(fine.headers.get("content-type") ?? "", /^application\/json/);
    assert.deepEqual((await fine.json()).result, {});
  } finally {
    await t.close();
  }
});

Deno.test("answers past the byte bound of one POST become errors for their ids", async () => {
  const sent: JSONRPCMessage[] = [];
  const transport = boundAnswers({
    send: (message: JSONRPCMessage) => (sent.push(message), Promise.resolve()),
  }, 1000);
  const answer = (id: number) => ({
    jsonrpc: "2.0" as const,
    id,
    result: { text: "x".repeat(500) },
  });
  await transport.send(answer(1));
  await transport.send(answer(2));
  await transport.send({ jsonrpc: "2.0", method: "notifications/progress", params: {} });
  await transport.send({ jsonrpc: "2.0", id: 3, error: { code: -1, message: "short" } });
  assert.deepEqual(sent[0], answer(1), "within the bound: as it was");
  const refused = sent[1] as { id: number; error: { code: number; message: string } };
  assert.equal(refused.id, 2);
  assert.equal(refused.error.code, ErrorCode.InternalError);
  assert.match(refused.error.message, /at most 1000 bytes/);
  assert.equal((sent[2] as { method: string }).method, "notifications/progress");
  assert.deepEqual(sent[3], { jsonrpc: "2.0", id: 3, error: { code: -1, message: "short" } });
});
