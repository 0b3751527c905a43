/**
 * The outputSchema of each tool: what its structuredContent (and its JSON text item) holds. A
 * tool that answers with its operation's JSON publishes that JSON's schema from /openapi.json,
 * without the fields that travel as items of their own (the image's base64, the page's text, the
 * favicon's bytes), plus what the MCP answer adds: how the image was shown and where the full
 * capture is.
 */
import type { SchemaObject } from "../discovery/openapi_document.ts";
import { compactJobSchema } from "./job_schemas.ts";

/**
 * What a tool does with its operation's answer: `capture` shows a capture (image view, file,
 * text), `read` the page's text, `json` the JSON as it is, `export` the image the operation
 * answered with, `start-job` the accepted job and what to call next, `job` the job compactly with
 * a link per done file.
 */
export type ToolKind = "capture" | "read" | "json" | "export" | "start-job" | "job";

type ObjectSchema = SchemaObject & { type: "object" };

const int = (description: string): SchemaObject => ({ type: "integer", description });

const TILE: SchemaObject = {
  type: "object",
  description: "A tile sent, and where it is in the capture.",
  properties: {
    tile: int("Its number"),
    x: int("Left, px"),
    y: int("Top, px"),
    width: int("px"),
    height: int("px"),
  },
  required: ["x", "y", "width", "height"],
};

const SCALED: SchemaObject = {
  type: "object",
  description: "view full only: the image was scaled down to what clients take; its size now.",
  properties: {
    width: int("px"),
    height: int("px"),
    contentType: { type: "string" },
    bytes: int("Size of the file sent"),
  },
};

const VIEW: SchemaObject = {
  type: "object",
  description: "How the capture is shown: positions are in the capture's pixels.",
  properties: {
    mode: { type: "string", enum: ["image", "tiles", "overview", "region"] },
    limits: {
      type: "object",
      properties: { maxSide: int("px"), maxPixels: int("pixels") },
    },
    overview: {
      type: "object",
      description: "Size of the overview image (the whole capture scaled down).",
      properties: { width: int("px"), height: int("px") },
    },
    tiles: {
      type: "array",
      description: "The tiles sent, in reading order; `tile` counts from 1.",
      items: TILE,
    },
    tileCount: int("How many tiles the whole capture (or region) is."),
    next: {
      type: "object",
      description: "Tiles were left out: these arguments (with the same others) bring them.",
      properties: {
        capture: { type: "string", description: "The kept capture's URI" },
        tile: int("The first tile not sent"),
      },
    },
  },
  required: ["mode", "tiles", "tileCount"],
};

const LINK: SchemaObject = {
  type: "object",
  description: "The exact capture: `uri` for resources/read, `url` over HTTP with no session. " +
    "Both stop working at `expiresAt`.",
  properties: {
    uri: { type: "string" },
    url: { type: "string", format: "uri" },
    mimeType: { type: "string" },
    size: int("Bytes"),
    expiresAt: { type: "string", format: "date-time" },
  },
  required: ["uri", "url", "mimeType", "size", "expiresAt"],
};

const EXPORTED: ObjectSchema = {
  type: "object",
  description: "The recompressed image (its bytes are the image item).",
  properties: {
    contentType: { type: "string" },
    bytes: int("Size of the file"),
    width: int("px"),
    height: int("px"),
    scaled: SCALED,
  },
  required: ["contentType", "bytes"],
};

/** The outputSchema of a tool of `kind` whose operation answers JSON of `answer`. */
export function outputSchemaOf(kind: ToolKind, answer: SchemaObject | undefined): ObjectSchema {
  if (kind === "export" || !answer) return EXPORTED;
  if (kind === "json" || kind === "start-job") return { ...answer, type: "object" };
  if (kind === "job") return compactJobSchema(answer);
  const properties = { ...answer.properties };
  delete properties.screenshot;
  delete properties.content;
  const page = properties.page;
  if (page?.properties) {
    const { faviconData: _, ...rest } = page.properties;
    const required = page.required?.filter((name) => name !== "faviconData");
    properties.page = { ...page, properties: rest, ...(required ? { required } : {}) };
  }
  if (kind === "capture") Object.assign(properties, { scaled: SCALED, view: VIEW, link: LINK });
  const required = answer.required?.filter((name) => name in properties);
  return { ...answer, type: "object", properties, ...(required ? { required } : {}) };
}
