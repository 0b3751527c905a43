/**
 * The two headers of a POST /mcp judged before the transport sees it. `Origin`: a web page the
 * user opened must not reach the endpoint through the browser (DNS rebinding points a hostile
 * name at a service on the user's own network), so a request that carries an Origin is served
 * only when it is the service's own or one the operator allowed; clients that are not browsers
 * send none and pass. `MCP-Protocol-Version`: a revision the SDK does not speak is the
 * MCP specification's 400 (modelcontextprotocol.io) (the transport would answer 404, which clients read as "session gone").
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { type McpRefusal, refusalOf } from "./batch.ts";

// JSON-RPC's range for server errors: the request is well formed, the server will not serve it.
const FORBIDDEN = -32000;
const INVALID_REQUEST = -32600;

export interface McpHeaders {
  origin: string | undefined;
  protocolVersion: string | undefined;
}

export interface OriginRule {
  /** The service's own origin: PUBLIC_BASE_URL's, when set. */
  own: string[];
  /** MCP_ALLOWED_ORIGINS: more origins, or "*" for any. */
  allowed: readonly string[];
}

/** The refusal a request with these headers gets, or null when it may go on. */
export function judgeHeaders(headers: McpHeaders, origins: OriginRule): McpRefusal | null {
  const { origin, protocolVersion } = headers;
  if (origin !== undefined && !originAllowed(origin, origins)) {
    return refusalOf(
      403,
      FORBIDDEN,
      `Forbidden: the Origin ${JSON.stringify(origin)} may not call this MCP endpoint. ` +
        "Browsers' pages are served only from the service's own origin and the ones its " +
        "operator lists in MCP_ALLOWED_ORIGINS.",
    );
  }
  if (protocolVersion !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(protocolVersion)) {
    return refusalOf(
      400,
      INVALID_REQUEST,
      `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(protocolVersion)}; ` +
        `supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}.`,
    );
  }
  return null;
}

function originAllowed(origin: string, rule: OriginRule): boolean {
  if (rule.allowed.includes("*")) return true;
  const normal = normalOrigin(origin);
  if (normal === null) return false;
  return [...rule.own, ...rule.allowed].some((o) => normalOrigin(o) === normal);
}

/** `origin` as the URL standard serialises it (lower-case host, no default port), else null. */
export function normalOrigin(origin: string): string | null {
  try {
    const url = new URL(origin);
    return url.origin === "null" ? null : url.origin;
  } catch {
    return null;
  }
}
