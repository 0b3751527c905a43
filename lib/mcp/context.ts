/** What a tool call needs of the /mcp request it runs in. */
import type { ImageExporter } from "../codecs/exporter.ts";
import type { CaptureLinks } from "../capture/links.ts";
import type { Logger } from "../log.ts";
import type { ViewDefaults } from "./view_arguments.ts";

export interface ToolCallContext {
  /** The app's own fetch, with the connection info of the client's request. */
  fetch(request: Request): Response | Promise<Response>;
  /** Origin the in-process requests go to: the client's request's, so links stay the same. */
  origin: string;
  /** Base URL for the links of an answer (PUBLIC_BASE_URL or the origin). */
  baseUrl: string;
  /** Headers of the client's request the operation must see (client IP chain, request id). */
  headers: Record<string, string>;
  exporter: ImageExporter;
  /** Where the exact capture is kept for its link. */
  links: CaptureLinks;
  /** The operator's defaults of the capture tool's view. */
  viewDefaults: ViewDefaults;
  log: Logger;
  requestId: string;
  /** Aborted when the client goes away; the operation is cancelled with it. */
  signal: AbortSignal;
}
