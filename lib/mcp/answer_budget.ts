/**
 * The bound on what one POST /mcp answers. A batch multiplies its answers: 20 capture calls
 * could each bring an image of up to 5 MiB of base64, and the transport writes them all as one
 * JSON body, built and held at once on the event loop. So the answers of one POST total at most
 * MAX_ANSWER_BYTES; an answer that would pass it is replaced by a short JSON-RPC error for its id.
 */
import { Buffer } from "node:buffer";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";

/**
 * Most bytes of answers per POST: room for the largest single answer (a capture's overview and
 * tiles, at most MAX_VIEW_BASE64_BYTES, with their text; a kept capture read as a resource),
 * not for a batch of them.
 */
export const MAX_ANSWER_BYTES = 40 * 1024 * 1024;

// JSON-RPC's internal error: the request was fine, its answer is what cannot be sent.
const INTERNAL_ERROR = -32603;

/** What the bound needs of a transport: the one method every answer goes through. */
export interface AnswerSender {
  send(message: JSONRPCMessage, options?: unknown): Promise<void>;
}

/**
 * Makes `transport` send answers (results and errors) totalling at most `maxBytes` of JSON;
 * past that each answer becomes a short error naming the bound. Notifications pass as they are.
 */
export function boundAnswers<T extends AnswerSender>(transport: T, maxBytes = MAX_ANSWER_BYTES): T {
  const send = transport.send.bind(transport);
  let left = maxBytes;
  transport.send = (message, options) => {
    const id = answeredId(message);
    if (id === undefined) return send(message, options);
    const size = Buffer.byteLength(JSON.stringify(message));
    if (size <= left) {
      left -= size;
      return send(message, options);
    }
    // The error's few hundred bytes are sent even past the bound: every request gets an answer.
    return send(tooLarge(id, maxBytes), options);
  };
  return transport;
}

/** The id a message answers, or undefined for a request or notification. */
function answeredId(message: JSONRPCMessage): RequestId | undefined {
  if ("method" in message || !("id" in message)) return undefined;
  return message.id as RequestId;
}

function tooLarge(id: RequestId, maxBytes: number): JSONRPCMessage {
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: INTERNAL_ERROR,
      message: `The answers of one POST may total at most ${maxBytes} bytes and this one ` +
        "would pass that: send this request in a POST of its own.",
    },
  } as JSONRPCMessage;
}
