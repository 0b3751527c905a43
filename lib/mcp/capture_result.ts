/**
 * capture_screenshot's answer: the operation's JSON, the image as a model reads it best (view.ts,
 * vision.ts), the file of a PDF or a recording, the page's text, and a link to the exact
 * capture, kept in the store so a follow-up call shows more of the same pixels.
 */
import { Buffer } from "node:buffer";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { invalidRequest, notFound } from "../errors.ts";
import { readImageInfo, sniffKind } from "../codecs/image_info.ts";
import { OUTPUT_MEDIA_TYPES, type OutputFormat } from "../capture/request/output.ts";
import { captureIdOf, type CaptureLink, captureUrlOf } from "../capture/links.ts";
import type { ToolCallContext } from "./context.ts";
import {
  findingsItems,
  fullImageResult,
  jsonItem,
  structured,
  type TextItem,
  textItem,
  withoutIconBytes,
} from "./result_items.ts";
import { type McpTool, TEXT_UNUSED } from "./tools.ts";
import type { ViewRequest } from "./view_arguments.ts";
import { viewImage } from "./vision.ts";

/** The operation's answer to a call's arguments (a failure is thrown with its envelope). */
export type Respond = (args: Record<string, unknown>) => Promise<Response>;

/** capture_screenshot: the image as the view asks (or the file, or the text), and its link. */
export async function captureResult(
  tool: McpTool,
  call: { view: ViewRequest; args: Record<string, unknown>; respond: Respond },
  ctx: ToolCallContext,
): Promise<CallToolResult> {
  const { view, args, respond } = call;
  const { capture } = view;
  if (capture) return await keptCaptureResult(tool, { ...view, capture }, ctx);
  const response = await respond(args);
  const { screenshot, content, ...rest } = await response.json();
  const about = withoutIconBytes(rest);
  // The page's text (format markdown or html): the text itself, then what it is.
  if (typeof content === "string") {
    return structured(about, [textItem(content), jsonItem(about), ...findingsItems(about)]);
  }
  if (typeof screenshot !== "string") throw new Error("operation answered without screenshot");
  const extra = view.includeText ? await pageText(args, respond) : [];
  const format = rest.format as OutputFormat;
  const mimeType = OUTPUT_MEDIA_TYPES[format];
  const bytes = Buffer.from(screenshot, "base64");
  const link = await keptLink(ctx, { bytes, mediaType: mimeType, name: fileName(about), about });
  // A PDF or a recording: an embedded resource, which clients save or show as a file.
  if (!isPicture(mimeType)) {
    const facts = withLink(about, link);
    const uri = link?.uri ?? `shotline://capture/${encodeURIComponent(String(about.url))}`;
    return structured(facts, [
      jsonItem(facts),
      ...findingsItems(about),
      { type: "resource", resource: { uri, mimeType, blob: screenshot } },
      ...extra,
      ...(link ? [linkItem(link, about)] : []),
    ]);
  }
  const shown = { bytes, mimeType, about, base64: screenshot, link };
  return await pictureResult(tool, shown, view, ctx, extra);
}

/** A capture shown again from its kept copy (a follow-up call for more tiles or a region). */
async function keptCaptureResult(
  tool: McpTool,
  view: ViewRequest & { capture: string },
  ctx: ToolCallContext,
): Promise<CallToolResult> {
  const id = captureIdOf(view.capture);
  const kept = id === null ? null : await ctx.links.read(id);
  if (!kept) {
    throw notFound(`No kept capture at ${view.capture}.`, {
      hint: "Kept captures expire (CAPTURE_LINK_TTL_SECONDS); capture the page again: its " +
        "answer has a new link.",
    });
  }
  if (!isPicture(kept.mediaType)) {
    throw invalidRequest(`${view.capture} is a ${kept.mediaType} file, not an image.`, {
      hint: "Tiles and regions are of image captures: read the file with resources/read.",
    });
  }
  const { bytes, mediaType, name, expiresAt, about } = kept;
  const url = captureUrlOf(ctx.baseUrl, id!);
  const link = { id: id!, uri: view.capture, url, mediaType, name, size: bytes.length, expiresAt };
  const shown = { bytes, mimeType: mediaType, about, link };
  return await pictureResult(tool, shown, view, ctx, []);
}

/** An image capture (`about` is its JSON) as the view asks, then its link. */
async function pictureResult(
  tool: McpTool,
  picture: {
    bytes: Uint8Array;
    mimeType: string;
    about: Record<string, unknown>;
    base64?: string;
    link: CaptureLink | null;
  },
  view: ViewRequest,
  ctx: ToolCallContext,
  extra: TextItem[],
): Promise<CallToolResult> {
  const { bytes, mimeType, about, base64, link } = picture;
  const linkItems = link ? [linkItem(link, about)] : [];
  if (view.mode === "full") {
    const image = { bytes, about: withLink(about, link), base64 };
    const full = await fullImageResult(tool, image, ctx);
    full.content.push(...extra, ...linkItems);
    return full;
  }
  const info = readImageInfo(sniffKind(bytes) ?? "png", bytes);
  if (!info) throw new Error("the capture is not an image we can read");
  const size = { width: info.width, height: info.height };
  const shown = await viewImage({ bytes, mimeType, ...size, uri: link?.uri }, view, ctx.exporter);
  const facts = { ...withLink(about, link), view: shown.facts };
  return structured(facts, [
    jsonItem(facts),
    ...findingsItems(about),
    ...shown.items,
    ...extra,
    ...linkItems,
  ]);
}

/** Whether a capture of this media type is a picture for the model (a GIF is a recording). */
function isPicture(mimeType: string): boolean {
  return mimeType.startsWith("image/") && mimeType !== "image/gif";
}

/** includeText: the same page read as Markdown, as the text item read_page would give. */
async function pageText(args: Record<string, unknown>, respond: Respond): Promise<TextItem[]> {
  const textArgs = Object.fromEntries(
    Object.entries(args).filter(([name]) => !TEXT_UNUSED.includes(name)),
  );
  const response = await respond({ ...textArgs, format: "markdown" });
  const { content } = await response.json();
  return [textItem(`The page's text as Markdown:\n\n${content}`)];
}

/** Keeps the capture for its link; a capture that cannot be kept is answered without one. */
async function keptLink(
  ctx: ToolCallContext,
  capture: { bytes: Uint8Array; mediaType: string; name: string; about: Record<string, unknown> },
): Promise<CaptureLink | null> {
  try {
    return await ctx.links.keep(capture, ctx.baseUrl);
  } catch (error) {
    ctx.log.warn("mcp: capture not kept for a link", { requestId: ctx.requestId, error });
    return null;
  }
}

/** `about` with where its capture is kept, when it is. */
function withLink(about: Record<string, unknown>, link: CaptureLink | null) {
  if (!link) return about;
  const { uri, url, mediaType: mimeType, size, expiresAt } = link;
  return {
    ...about,
    link: { uri, url, mimeType, size, expiresAt: new Date(expiresAt).toISOString() },
  };
}

function linkItem(link: CaptureLink, about: Record<string, unknown>) {
  const until = new Date(link.expiresAt).toISOString();
  return {
    type: "resource_link" as const,
    uri: link.uri,
    name: link.name,
    title: `Capture of ${about.url}`,
    description: `The exact capture (${link.size} bytes): resources/read this URI, or GET ` +
      `${link.url} with no session, until ${until}.`,
    mimeType: link.mediaType,
    size: link.size,
  };
}

/** A file name for the capture: the page's host and the format. */
function fileName(about: Record<string, unknown>): string {
  let host = "page";
  try {
    host = new URL(String(about.url)).hostname || host;
  } catch {
    // about:blank (an html capture) has no host.
  }
  return `${host}.${about.format}`;
}
