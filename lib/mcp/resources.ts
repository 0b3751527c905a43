/**
 * The captures a tool kept for its resource_link, served as MCP resources. They are read by the
 * URI a result gave (the id in it is the only key), never listed: a list would hand one client's
 * captures to every other, so resources/list is empty and resources/templates/list names the
 * form of the URIs.
 */
import { Buffer } from "node:buffer";
// @ts-types="@modelcontextprotocol/sdk/server/index"
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { CAPTURE_URI_TEMPLATE, captureIdOf, type CaptureLinks } from "../capture/links.ts";

// The MCP specification's code (modelcontextprotocol.io) for a resource that is not there.
const RESOURCE_NOT_FOUND = -32002;

/** Adds the resource methods to `server`, reading kept captures from `links`. */
export function serveKeptCaptures(server: Server, links: CaptureLinks): void {
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [] }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [{
      uriTemplate: CAPTURE_URI_TEMPLATE,
      name: "capture",
      title: "A kept capture",
      description: "The exact bytes of a capture a tool answered with, for a while after it " +
        "(the resource_link of its result gives the URI). Not listed: the id is its key.",
    }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    const id = captureIdOf(uri);
    const kept = id === null ? null : await links.read(id);
    if (!kept) {
      throw new McpError(
        RESOURCE_NOT_FOUND,
        `Resource not found: ${uri}. Kept captures expire; a new capture gives a new link.`,
        { uri },
      );
    }
    const { bytes, mediaType: mimeType } = kept;
    const content = mimeType.startsWith("text/")
      ? { text: new TextDecoder().decode(bytes) }
      : { blob: Buffer.from(bytes).toString("base64") };
    return { contents: [{ uri, mimeType, ...content }] };
  });
}
