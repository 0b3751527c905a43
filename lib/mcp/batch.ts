/**
 * What one POST /mcp may carry, decided before the SDK's transport sees it. The transport
 * validates every message of a batch, then looks up every answered id among all of them for each
 * answer (time growing with the square of the batch: 8,000 pings held the event loop 17 s), and
 * MCP revisions since 2025-06-18 have no batches at all. So a batch is refused under those
 * revisions and capped for older clients, and a body's values and nesting are bounded before it
 * is parsed.
 */
import { JSON_BOUNDS, jsonShape } from "../http/json_shape.ts";
import { parseJsonBytes } from "../http/json_parse.ts";

/** The first MCP revision without JSON-RPC batches. */
export const BATCHLESS_REVISION = "2025-06-18";
/** Most messages in one batch from a client of an older revision. */
export const MAX_BATCH_MESSAGES = 20;

// Strings from this size on (an export_image upload's base64) are decoded natively, not by
// JSON.parse (lib/http/json_parse.ts); from the second on they stay bytes (LongString) for the
// tool call to read a slice at a time.
const LONG_STRING_BYTES = 64 * 1024;
const KEPT_STRING_BYTES = 1024 * 1024;

// JSON-RPC's own codes: the refusal is the protocol's, so any MCP client can read it.
const INVALID_REQUEST = -32600;
const PARSE_ERROR = -32700;

/** A JSON-RPC error answer for the whole POST (id null: no one message is answered). */
export interface McpRefusal {
  status: 400 | 403;
  body: { jsonrpc: "2.0"; id: null; error: { code: number; message: string } };
}

export type Admission = { ok: true; messages: unknown } | { ok: false; refusal: McpRefusal };

/**
 * The parsed JSON-RPC body of a POST, or the refusal of a batch under a batchless revision
 * (`protocolVersion` is the MCP-Protocol-Version header), a batch past MAX_BATCH_MESSAGES, a
 * body past JSON_BOUNDS, or one that is not JSON.
 */
export function admitMessages(bytes: Uint8Array, protocolVersion: string | undefined): Admission {
  // One linear scan, stopped at the first bound passed: nothing is parsed past it.
  const shape = jsonShape(bytes, { ...JSON_BOUNDS, longString: LONG_STRING_BYTES });
  if (shape.batch !== undefined && isBatchless(protocolVersion)) return batchlessRefusal();
  if (shape.batch !== undefined && shape.batch > MAX_BATCH_MESSAGES) {
    return refuse(
      INVALID_REQUEST,
      `Invalid Request: a batch may hold at most ${MAX_BATCH_MESSAGES} messages; send the ` +
        "rest in further POSTs.",
    );
  }
  if (shape.over === "values") {
    return refuse(
      INVALID_REQUEST,
      `Invalid Request: a message may hold at most ${JSON_BOUNDS.maxValues} JSON values.`,
    );
  }
  if (shape.over === "depth") {
    return refuse(
      INVALID_REQUEST,
      `Invalid Request: a message may nest at most ${JSON_BOUNDS.maxDepth} levels deep.`,
    );
  }
  let messages: unknown;
  try {
    messages = parseJsonBytes(bytes, shape.longStrings, KEPT_STRING_BYTES);
  } catch {
    return refuse(PARSE_ERROR, "Parse error: the body is not JSON.");
  }
  // A batch that initialises at a batchless revision negotiates one: it is refused the same.
  if (Array.isArray(messages) && messages.some(initialisesBatchless)) return batchlessRefusal();
  return { ok: true, messages };
}

/** Whether an MCP revision (a date, YYYY-MM-DD) is one without batches. */
export function isBatchless(revision: string | undefined): boolean {
  return revision !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(revision) &&
    revision >= BATCHLESS_REVISION;
}

function initialisesBatchless(message: unknown): boolean {
  if (typeof message !== "object" || message === null) return false;
  const { method, params } = message as {
    method?: unknown;
    params?: { protocolVersion?: unknown };
  };
  const revision = params?.protocolVersion;
  return method === "initialize" && typeof revision === "string" && isBatchless(revision);
}

function batchlessRefusal(): Admission {
  return refuse(
    INVALID_REQUEST,
    `Invalid Request: MCP ${BATCHLESS_REVISION} and later have no JSON-RPC batches; send one ` +
      "message per POST.",
  );
}

function refuse(code: number, message: string): Admission {
  return { ok: false, refusal: refusalOf(400, code, message) };
}

/** The protocol's error for a whole POST, with its HTTP status. */
export function refusalOf(status: 400 | 403, code: number, message: string): McpRefusal {
  return { status, body: { jsonrpc: "2.0", id: null, error: { code, message } } };
}
