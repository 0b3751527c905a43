import type { Context } from "hono";
import type { AppEnv } from "./app_env.ts";
import { type ApiError, errorEnvelope, errorMarkdown } from "../errors.ts";
import { wantsMarkdown } from "./negotiate.ts";

/** PUBLIC_BASE_URL when set, else the origin the request came in on. */
export function baseUrlOf(c: Context<AppEnv>): string {
  return c.var.deps.config.PUBLIC_BASE_URL ?? new URL(c.req.url).origin;
}

/** Writes the one error envelope (JSON, or Markdown when the client prefers it). */
export function errorResponse(c: Context<AppEnv>, error: ApiError): Response {
  const envelope = errorEnvelope(error, baseUrlOf(c));
  const headers = new Headers(error.headers);
  headers.set("Vary", "Accept");
  headers.set("Cache-Control", "no-store");
  if (wantsMarkdown(c.req.header("Accept"), "application/json")) {
    headers.set("Content-Type", "text/markdown; charset=utf-8");
    return new Response(errorMarkdown(envelope), { status: error.status, headers });
  }
  headers.set("Content-Type", "application/json; charset=utf-8");
  return new Response(JSON.stringify(envelope), { status: error.status, headers });
}
