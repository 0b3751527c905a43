/**
 * The page's content as text (format markdown or html): the bundled reader
 * (vendor/readable_page.js, built by scripts/build_readable_page.ts) evaluated in an isolated
 * world of the main frame, which shares the page's DOM but none of its JavaScript, so a page
 * script that replaces a built-in or a DOM method cannot change what is read. The reader works
 * on a clone of the document: the live page stays as it is, ready to be shot.
 */
import type { CDPSession, Page } from "puppeteer-core";
import type { TextFormat } from "../request/output.ts";
import { withTimeout } from "../../timeout.ts";
import { PageFailure } from "./page_failure.ts";
import READABLE_PAGE from "./vendor/readable_page.js";

/**
 * Most UTF-8 bytes of text one capture answers with: a long documentation page is well under
 * 1 MiB of Markdown; past 5 MiB the text is cut at a character boundary and marked truncated.
 */
export const MAX_CONTENT_BYTES = 5 * 1024 * 1024;

// The world's name, as DevTools lists it; one world per name and document.
const WORLD_NAME = "shotline-read";

export interface ReadContent {
  /** Markdown or HTML, at most MAX_CONTENT_BYTES of UTF-8. */
  text: string;
  /** The text was cut at MAX_CONTENT_BYTES. */
  truncated: boolean;
}

/**
 * Reads the page's readable content as Markdown, or its rendered DOM as HTML without scripts;
 * throws PageFailure read_timeout when the page keeps its main thread too busy to be read in time.
 */
export async function readContent(
  page: Page,
  format: TextFormat,
  timeoutMs: number,
): Promise<ReadContent> {
  const cdp = await page.createCDPSession();
  try {
    return await withTimeout(
      readInIsolatedWorld(cdp, format),
      timeoutMs,
      () => new PageFailure({ kind: "read_timeout" }),
    );
  } finally {
    await cdp.detach().catch(() => {}); // a closed page has detached it already
  }
}

async function readInIsolatedWorld(cdp: CDPSession, format: TextFormat): Promise<ReadContent> {
  const { frameTree } = await cdp.send("Page.getFrameTree");
  const { executionContextId } = await cdp.send("Page.createIsolatedWorld", {
    frameId: frameTree.frame.id,
    worldName: WORLD_NAME,
  });
  const call = `__shotlineReadable(${JSON.stringify(format)}, ${MAX_CONTENT_BYTES})`;
  const { result, exceptionDetails } = await cdp.send("Runtime.evaluate", {
    expression: `${READABLE_PAGE};\n${call}`,
    contextId: executionContextId,
    returnByValue: true,
  });
  if (exceptionDetails) {
    const said = exceptionDetails.exception?.description ?? exceptionDetails.text;
    throw new Error(`reading the page as ${format} failed: ${said}`);
  }
  const value = result.value as Partial<ReadContent> | undefined;
  if (typeof value?.text !== "string") throw new Error(`reading the page as ${format}: no text`);
  return { text: value.text, truncated: value.truncated === true };
}
