/**
 * Requests the service sends to its own routes (an MCP tool call runs the HTTP operation it
 * stands for, so every rule of that operation applies unchanged). They are marked by object
 * identity, which no client can forge with a header: the access log tags their line with the
 * tool, and the HTTP request counter leaves them out, since the call is counted once, as a tool
 * call.
 */

/** What an in-process request is part of. */
export interface InProcessCall {
  /** The MCP tool whose call this request carries out. */
  tool: string;
}

const calls = new WeakMap<Request, InProcessCall>();

/** A request to one of the app's own routes, marked as part of `call`. */
export function inProcessRequest(url: string, init: RequestInit, call: InProcessCall): Request {
  const request = new Request(url, init);
  calls.set(request, call);
  return request;
}

/** The call `request` belongs to, or undefined for a request that came from a client. */
export function inProcessCallOf(request: Request): InProcessCall | undefined {
  return calls.get(request);
}
