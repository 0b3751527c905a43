/**
 * The answers of the job tools. start_capture_job answers at once with the accepted job and
 * what to call next; get_capture_job answers the job compactly (lib/mcp/job_schemas.ts), after
 * waiting for it to finish when asked, with a resource_link per done item: an agent fetches the
 * files it wants by link, never a whole job's bytes inline.
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ItemView, JobView } from "../jobs/views.ts";
import { ITEM_RESULT_FIELDS, MAX_WAIT_SECONDS } from "./job_schemas.ts";
import { jsonItem, structured, textItem } from "./result_items.ts";

// Between reads of a waited-for job: a read is one small record and results kept in memory, and
// half a second is short next to a capture.
const POLL_MS = 500;

/** start_capture_job's answer: the accepted job as it came, and how to read its results. */
export function acceptedJobResult(accepted: Record<string, unknown>): CallToolResult {
  const { id, total, expiresAt } = accepted;
  const next = `Job ${id} accepted: ${total} captures queued; they run in the background. ` +
    `Call get_capture_job with {"id":"${id}"} to read the results (add waitSeconds, up to ` +
    `${MAX_WAIT_SECONDS}, to wait for the job to finish); each done item's file comes as a ` +
    `resource_link. The job and its results are kept until ${expiresAt}.`;
  return structured(accepted, [jsonItem(accepted), textItem(next)]);
}

/**
 * The job `read` gives, read again every POLL_MS until it finished or `seconds` ran out;
 * `signal` (the client going away) stops the wait with an AbortError.
 */
export async function waitForJob(
  read: () => Promise<JobView>,
  options: { seconds: number; signal: AbortSignal },
): Promise<JobView> {
  const deadline = Date.now() + options.seconds * 1000;
  for (;;) {
    const view = await read();
    const left = deadline - Date.now();
    if (view.finishedAt !== undefined || left <= 0) return view;
    await pause(Math.min(POLL_MS, left), options.signal);
    // Named as a fetch aborted by the client is, so the call counts as "aborted", not failed.
    if (options.signal.aborted) throw new DOMException("The client went away.", "AbortError");
  }
}

/** get_capture_job's answer: the compact job, where it stands in words, a link per done file. */
export function jobResult(view: JobView): CallToolResult {
  const compact = compactJob(view);
  const links = view.items.flatMap((item) => {
    const link = resourceLinkOf(item);
    return link ? [link] : [];
  });
  return structured(compact, [jsonItem(compact), textItem(standing(view)), ...links]);
}

/** The job with each item reduced to its status, where its file is, or its error. */
export function compactJob(view: JobView): Record<string, unknown> {
  const { items, webhook, ...job } = view;
  return {
    ...job,
    ...(webhook ? { webhook: { url: webhook.url, events: webhook.events } } : {}),
    items: items.map(compactItem),
  };
}

function compactItem(item: ItemView): Record<string, unknown> {
  const compact: Record<string, unknown> = { index: item.index, status: item.status };
  const result = item.result;
  if (result) {
    for (const name of ITEM_RESULT_FIELDS) {
      if (result[name] !== undefined) compact[name] = result[name];
    }
    const report = result.report as { findings?: { kind: string }[] } | undefined;
    const findings = report?.findings?.map((f) => f.kind) ?? [];
    if (findings.length) compact.findings = findings;
  }
  if (item.error) {
    const { code, message, hint } = item.error;
    compact.error = { code, message, ...(hint ? { hint } : {}) };
  }
  return compact;
}

/** A done item's file as a link: this service's GET /api/jobs/{id}/items/{n}, no session. */
function resourceLinkOf(item: ItemView) {
  const result = item.result;
  if (item.status !== "done" || !result) return null;
  const subtype = result.contentType.split("/")[1]?.split(/[;+]/)[0] ?? "bin";
  return {
    type: "resource_link" as const,
    uri: item.links.image ?? result.imageUrl,
    name: `item-${item.index}.${subtype}`,
    title: `Item ${item.index}: ${result.url ?? "capture"}`,
    mimeType: result.contentType,
    size: result.bytes,
  };
}

/** Where the job stands, and what to do next, for a model that reads the items. */
function standing(view: JobView): string {
  const { id, status, total, counts, expiresAt } = view;
  const files = `Each done item's file is a resource_link: GET its URL over HTTP (no session ` +
    `or key) until ${expiresAt}.`;
  if (view.finishedAt === undefined) {
    return `Job ${id} is ${status}: ${counts.done} of ${total} done, ${counts.running} ` +
      `running, ${counts.queued} queued. Call get_capture_job again with {"id":"${id}"} and ` +
      `waitSeconds (up to ${MAX_WAIT_SECONDS}) for the rest. ${files}`;
  }
  const failed = counts.failed ? ` Failed items carry their error's code and message.` : "";
  return `Job ${id} is ${status}: ${counts.done} done, ${counts.failed} failed, ` +
    `${counts.cancelled} cancelled of ${total}. ${files}${failed}`;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
