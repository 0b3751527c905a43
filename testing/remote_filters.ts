/** A remote capturer with filter lists served by the test, for the remote options tests. */
import assert from "node:assert/strict";
import { createAdFilters } from "../lib/capture/filter_lists.ts";
import type { CaptureJob, Capturer, CaptureResult } from "../lib/capture/types.ts";
import { createRemoteCapturer } from "../lib/capture/remote/capturer.ts";
import { createMemoryLogger } from "../lib/log.ts";
import { createVideoEncoders } from "../lib/codecs/video_encoder.ts";
import { createKvStore } from "../lib/store/deno_kv.ts";
import type { RemoteChromium } from "./remote_chromium.ts";

/**
 * The "chromium-remote" backend on `remote`, with the ad and annoyance lists at `lists` loaded
 * into an in-memory store first; disposing it closes the capturer, the lists and the store.
 */
export async function remoteWithFilters(
  remote: RemoteChromium,
  lists: { urls?: string[]; annoyanceUrls?: string[] },
) {
  const kv = await Deno.openKv(":memory:");
  const log = createMemoryLogger();
  const clock = { now: () => Date.now() };
  const adFilters = createAdFilters({
    urls: lists.urls ?? [],
    ...(lists.annoyanceUrls && { annoyanceUrls: lists.annoyanceUrls }),
    store: createKvStore(kv, clock),
    log,
    clock,
    fetch,
  });
  await adFilters.start();
  const capturer = createRemoteCapturer({
    endpoints: [remote.endpoint],
    timeoutMs: 8_000,
    allowPrivateNetwork: true,
    log,
    adFilters,
    videoEncoders: createVideoEncoders({ ffmpegPath: "ffmpeg" }),
  });
  return {
    capturer,
    log,
    async [Symbol.asyncDispose]() {
      await capturer.close();
      adFilters.close();
      kv.close();
    },
  };
}

/**
 * A desktop, light capture of `path` on `origin` by `capturer`, with `extra` job fields, checked to
 * have been rendered by the remote backend.
 */
export function remoteShooter(capturer: Capturer, origin: string) {
  return async (path: string, extra: Partial<CaptureJob> = {}): Promise<CaptureResult> => {
    const result = await capturer.capture({
      url: `${origin}${path}`,
      deviceType: "desktop",
      colorScheme: "light",
      ...extra,
    });
    assert.equal(result.strategy, "chromium-remote");
    return result;
  };
}
