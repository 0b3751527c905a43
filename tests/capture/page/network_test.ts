/**
 * Which navigations are the page's own, with puppeteer's events replayed in the orders a loaded
 * machine delivers them: a sub-frame's navigation reported before its frame is known, or after
 * it left the frame tree, is never the top-level one, so a refused iframe cannot fail the
 * capture; a redirect hop of the top navigation still counts whatever frame it comes on.
 */
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import type { Frame, HTTPRequest, HTTPResponse, Page } from "puppeteer-core";
import { trackNetwork } from "../../../lib/capture/page/network.ts";
import { rejectProxyAnswer } from "../../../lib/capture/page/refusals.ts";
import { EGRESS_MARKER_HEADER, type RefusalLog } from "../../../lib/egress/types.ts";

const PAGE_URL = "http://public.test/v/iframe";
const FRAME_URL = "http://10.0.0.1:8080/frame";

/** A frame whose parent is whatever `parent()` says now (the tree changes under load). */
function fakeFrame(parent: () => Frame | null = () => null): Frame {
  return { parentFrame: parent } as unknown as Frame;
}

/** A page that emits what the test says, with `main` as its main frame. */
function fakePage(main: Frame) {
  const events = new EventEmitter();
  const page = {
    on: (name: string, listener: (...args: unknown[]) => void) => events.on(name, listener),
    off: (name: string, listener: (...args: unknown[]) => void) => events.off(name, listener),
    mainFrame: () => main,
    frames: () => [main],
  } as unknown as Page;
  return { page, emit: (name: string, value: unknown) => events.emit(name, value) };
}

/**
 * A document navigation request of `frame` (null: not known to puppeteer yet); a redirect hop
 * carries the requests before it.
 */
function navigation(url: string, frame: Frame | null, chain: HTTPRequest[] = []): HTTPRequest {
  return {
    redirectChain: () => chain,
    url: () => url,
    frame: () => frame,
    isNavigationRequest: () => true,
    resourceType: () => "document",
  } as unknown as HTTPRequest;
}

/** The egress proxy's own answer to `request` (its marker header set). */
function proxyAnswer(request: HTTPRequest): HTTPResponse {
  return {
    request: () => request,
    status: () => 403,
    headers: () => ({ [EGRESS_MARKER_HEADER.toLowerCase()]: "refused" }),
  } as unknown as HTTPResponse;
}

function pageAnswer(request: HTTPRequest): HTTPResponse {
  return { request: () => request, status: () => 200, headers: () => ({}) } as HTTPResponse;
}

const refusedFrame: RefusalLog = {
  refusals: [{ host: "10.0.0.1", port: 8080, kind: "forbidden_address", detail: "private" }],
};

/** The top document loads, then a sub-frame's refused navigation arrives as `frame`. */
function iframeRefused(
  frameOf: (main: Frame) => Frame | null,
  before?: (frame: Frame, emit: (name: string, value: unknown) => void) => void,
) {
  const main = fakeFrame();
  const { page, emit } = fakePage(main);
  const network = trackNetwork(page, PAGE_URL);
  const top = navigation(PAGE_URL, main);
  emit("request", top);
  emit("response", pageAnswer(top));
  emit("requestfinished", top);
  const frame = frameOf(main);
  if (frame) before?.(frame, emit);
  const sub = navigation(FRAME_URL, frame);
  emit("request", sub);
  emit("response", proxyAnswer(sub));
  emit("requestfailed", sub);
  network.stop();
  return network;
}

function assertTopUntouched(network: ReturnType<typeof iframeRefused>) {
  assert.equal(network.mainResponse?.status(), 200, "the top document stays the main response");
  assert.equal(network.navigationFailed, false);
  assert.deepEqual([...network.navigationHosts], ["public.test"]);
  // The render's check of the proxy's answer lets the capture go on.
  rejectProxyAnswer(network, refusedFrame);
}

Deno.test("a sub-frame's refused navigation reported before its frame is known is not the page's", () => {
  assertTopUntouched(iframeRefused(() => null));
});

Deno.test("a sub-frame's refused navigation after it left the frame tree is not the page's", () => {
  // Attached with a parent, then detached: puppeteer's tree no longer knows its parent.
  let parent: Frame | null = null;
  const network = iframeRefused(
    (main) => {
      parent = main;
      return fakeFrame(() => parent);
    },
    (frame, emit) => {
      // The page saw it attach; by the time its navigation is reported it has no parent.
      emit("frameattached", frame);
      parent = null;
    },
  );
  assertTopUntouched(network);
});

Deno.test("the top navigation's redirect hop counts on a swapped frame object or on none", () => {
  const main = fakeFrame();
  const { page, emit } = fakePage(main);
  const network = trackNetwork(page, PAGE_URL);
  const first = navigation(PAGE_URL, main);
  emit("request", first);
  // A hop's frame may be a new main frame object, or one not known yet.
  const swapped = navigation("http://other.test/hop", fakeFrame(), [first]);
  emit("request", swapped);
  const unknown = navigation("http://10.0.0.1/last", null, [first, swapped]);
  emit("request", unknown);
  emit("response", proxyAnswer(unknown));
  emit("requestfailed", unknown);
  network.stop();
  assert.deepEqual([...network.navigationHosts], ["public.test", "other.test", "10.0.0.1"]);
  assert.equal(network.navigationFailed, true);
  assert.throws(
    () => rejectProxyAnswer(network, { refusals: [{ ...refusedFrame.refusals[0], port: 80 }] }),
    { name: "RefusedDestination" },
  );
});
