/**
 * The pieces of a tool result: text and JSON items, the structured content, the report's
 * findings in words, and one image made to fit what MCP clients take.
 */
import { Buffer } from "node:buffer";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { fitImage, type FitLimits, type FittedImage } from "../codecs/fit.ts";
import { readImageInfo, sniffKind } from "../codecs/image_info.ts";
import { CONTENT_TYPES } from "../codecs/presets.ts";
import type { ToolCallContext } from "./context.ts";
import type { McpTool } from "./tools.ts";

/**
 * The strictest image limits among common MCP clients: Anthropic's API refuses an image with a
 * side over 8000 px or more than 5 MB of base64; OpenAI's and Google's take more.
 */
export const CLIENT_IMAGE_LIMITS: FitLimits = { maxSide: 8000, maxBase64Bytes: 5 * 1024 * 1024 };

export type TextItem = { type: "text"; text: string };

export const textItem = (text: string): TextItem => ({ type: "text", text });
export const jsonItem = (value: unknown): TextItem => textItem(JSON.stringify(value));

/** A result whose structured content is `facts` (the first text item is its JSON). */
export function structured(facts: Record<string, unknown>, content: CallToolResult["content"]) {
  return { content, structuredContent: facts };
}

/** The report's findings in words, for a model that reads the items and not the JSON. */
export function findingsItems(about: Record<string, unknown>): TextItem[] {
  const report = about.report as { findings?: { kind: string; hint: string }[] } | undefined;
  const findings = report?.findings ?? [];
  if (findings.length === 0) return [];
  const lines = findings.map((f) => `- ${f.kind}: ${f.hint}`);
  return [textItem(`The capture may not show the page as meant:\n${lines.join("\n")}`)];
}
/**
 * The answer's text without the favicon's bytes: kilobytes of base64 a model reads as noise (an
 * editor drawing the icon calls the HTTP operation). Its URL stays.
 */
export function withoutIconBytes(about: Record<string, unknown>): Record<string, unknown> {
  const page = about.page;
  if (typeof page !== "object" || page === null || !("faviconData" in page)) return about;
  const { faviconData: _, ...rest } = page as Record<string, unknown>;
  return { ...about, page: rest };
}

/** One image item (scaled when clients could not take it) and the JSON text about it. */
export async function fullImageResult(
  tool: McpTool,
  image: {
    bytes: Uint8Array;
    about: Record<string, unknown>;
    /** `bytes` as base64 when the operation sent them so: sent on as they are if they fit. */
    base64?: string;
  },
  ctx: ToolCallContext,
): Promise<CallToolResult> {
  const { bytes, about, base64 } = image;
  const kind = sniffKind(bytes);
  if (!kind) throw new Error("the operation answered with something that is not an image");
  const fitted = await fitImage(bytes, { limits: CLIENT_IMAGE_LIMITS, exporter: ctx.exporter });
  const data = fitted
    ? Buffer.from(fitted.bytes).toString("base64")
    : base64 ?? Buffer.from(bytes).toString("base64");
  const mimeType = fitted?.contentType ?? CONTENT_TYPES[kind];
  const facts = fitted ? { ...about, scaled: scaledFacts(fitted) } : about;
  return structured(facts, [
    jsonItem(facts),
    ...findingsItems(about),
    { type: "image", data, mimeType },
    ...(fitted ? [textItem(scaledNote(tool, bytes, fitted, ctx))] : []),
  ]);
}

function scaledFacts(fitted: FittedImage) {
  const { width, height, contentType, bytes } = fitted;
  return { width, height, contentType, bytes: bytes.length };
}

function scaledNote(
  tool: McpTool,
  original: Uint8Array,
  fitted: FittedImage,
  ctx: ToolCallContext,
) {
  const info = readImageInfo(sniffKind(original) ?? "png", original);
  const size = info ? `${info.width}x${info.height}, ` : "";
  const { maxSide, maxBase64Bytes } = CLIENT_IMAGE_LIMITS;
  const how = tool.carrier === "multipart"
    ? "as multipart/form-data with the image as a file"
    : "with the same arguments as its JSON body";
  return `Scaled down: the image is ${size}${original.length} bytes, more than MCP clients ` +
    `take (${maxSide} px a side, ${maxBase64Bytes} bytes of base64), so it is sent at ` +
    `${fitted.width}x${fitted.height} as ${fitted.format.toUpperCase()}. The full image: ` +
    `${tool.method} ${ctx.baseUrl}${tool.path} ${how}.`;
}
