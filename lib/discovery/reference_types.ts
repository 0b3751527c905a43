/** The reference model that /llms.txt, /llms-full.txt and /docs render: plain data, no logic. */
import type { Config } from "../config.ts";
import type { ErrorCode } from "../errors.ts";

/**
 * One line of prose whose only markup is `code spans`: the Markdown renderer prints it as it is,
 * the HTML renderer escapes it and turns the spans into <code>.
 */
export type Text = string;

export interface FieldRef {
  name: string;
  type: Text;
  required: boolean;
  /** Description, default and pattern. */
  notes: Text;
}

export interface ParameterRef extends FieldRef {
  in: string;
}

export interface BodyRef {
  contentType: string;
  /** Empty when the body is not an object; `type` says what it is then. */
  fields: FieldRef[];
  type: Text;
}

export interface ResponseRef {
  status: string;
  contentTypes: string[];
  description: Text;
  /** Error codes this response carries, each with its entry's anchor in `errors`. */
  codes: Array<{ code: ErrorCode; anchor: string }>;
  headers: Array<{ name: string; description: Text }>;
}

export interface OperationRef {
  id: string;
  /** Fragment of the operation's section in /docs. */
  anchor: string;
  method: string;
  path: string;
  summary: Text;
  description: Text;
  parameters: ParameterRef[];
  bodies: BodyRef[];
  responses: ResponseRef[];
  /**
   * The JSON bodies of its successful answers (status and body), an object's fields one level
   * down as `parent.child`.
   */
  answers: Array<BodyRef & { status: string }>;
  /** Requests the service sends back to a URL the request gave (a job's webhook). */
  callbacks: CallbackRef[];
  /** A runnable example built from the schemas' examples. */
  curl: string;
}

/** One request the service sends to the client (OpenAPI's callback), e.g. a webhook event. */
export interface CallbackRef {
  name: string;
  method: string;
  /** Where it goes: the runtime expression naming the request's field, e.g. `webhook.url`. */
  target: Text;
  summary: Text;
  description: Text;
  bodies: BodyRef[];
  /** What the receiver answers. */
  responses: ResponseRef[];
}

export interface ErrorRef {
  code: ErrorCode;
  anchor: string;
  statuses: number[];
  meaning: Text;
  hint: Text;
}

export interface HeaderRef {
  name: string;
  description: Text;
  /** Statuses of the rate-limited operations whose responses carry the header. */
  statuses: string[];
}

/** One of the service's descriptions of itself. */
export interface DocumentLink {
  path: string;
  label: string;
  about: Text;
}

/** One MCP tool: what it answers and the operation it runs. */
export interface McpToolRef {
  name: string;
  title: string;
  answer: Text;
  /** The operation's method, path and anchor in /docs. */
  operation: { method: string; path: string; anchor: string };
  /** Names and types, e.g. "`id` (string, required)"; the details are the operation's. */
  arguments: Text;
}

/** The MCP endpoint: where it is, how it behaves, its tools and how a client adds it. */
export interface McpRef {
  url: string;
  about: Text;
  tools: McpToolRef[];
  /** Ways to add the endpoint to a client: a label and a snippet (shell or JSON) each. */
  setup: Array<{ label: Text; code: string }>;
}

/** Everything /llms.txt, /llms-full.txt and /docs say, derived from the OpenAPI document. */
export interface ApiReference {
  title: string;
  summary: Text;
  baseUrl: string;
  /** Base URL, versions, credentials and content negotiation. */
  overview: Text;
  /** The two sentences a first call needs: no key, and how errors look. */
  gettingStarted: Text;
  documents: DocumentLink[];
  operations: OperationRef[];
  envelope: { intro: Text; fields: FieldRef[] };
  errors: ErrorRef[];
  limits: Text[];
  rateLimitHeaders: HeaderRef[];
  mcp: McpRef;
}

/** The settings the reference states as limits. */
export type ReferenceConfig = Pick<
  Config,
  "RATE_LIMIT_PER_MINUTE" | "MAX_UPLOAD_BYTES" | "JOB_MAX_QUEUED_PER_IP" | "JOB_TTL_SECONDS"
>;
