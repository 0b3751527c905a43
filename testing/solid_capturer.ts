import { deflateSync, inflateSync } from "node:zlib";
import type {
  CaptureBackendStatus,
  CaptureJob,
  Capturer,
  CaptureResult,
} from "../lib/capture/types.ts";
import { concatBytes } from "../lib/bytes.ts";
import { pngChunks } from "./png.ts";
import { VIEWPORTS } from "../lib/capture/types.ts";
import { outputKind } from "../lib/capture/request/output.ts";
import { pngChunk } from "../lib/codecs/png_encoder.ts";

const pngCache = new Map<string, Uint8Array>();

/** A real PNG of one solid RGB colour (memoised: tests ask for the same few often). */
export function solidPng(width: number, height: number, rgb: [number, number, number]) {
  const id = `${width}x${height}:${rgb}`;
  const known = pngCache.get(id);
  if (known) return known;
  const row = new Uint8Array(1 + width * 3);
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  const raw = new Uint8Array(row.length * height);
  for (let y = 0; y < height; y++) raw.set(row, y * row.length);
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const parts = [
    new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", new Uint8Array(deflateSync(raw))),
    pngChunk("IEND", new Uint8Array()),
  ];
  const png = concatBytes(parts);
  pngCache.set(id, png);
  return png;
}

export interface SolidCapturer extends Capturer {
  /** Every job the capturer was asked to render, in order. */
  jobs: CaptureJob[];
  /** Signals passed with each job. */
  signals: (AbortSignal | undefined)[];
  /** Renders wait on this gate while it is closed. */
  hold(): void;
  release(): void;
  /** Throw this from the next captures instead of rendering. */
  failWith: Error | null;
}

/**
 * A test Capturer: a real PNG of the requested viewport, light or dark, whose shade changes
 * with every call (so a re-render is distinguishable from a cached image).
 */
export function solidCapturer(options: { targetStatus?: number | null } = {}): SolidCapturer {
  let gate: { promise: Promise<void>; open: () => void } | null = null;
  const self: SolidCapturer = {
    jobs: [],
    signals: [],
    failWith: null,
    hold() {
      const { promise, resolve } = Promise.withResolvers<void>();
      gate = { promise, open: resolve };
    },
    release() {
      gate?.open();
      gate = null;
    },
    async capture(job: CaptureJob, signal?: AbortSignal): Promise<CaptureResult> {
      self.jobs.push(job);
      self.signals.push(signal);
      const call = self.jobs.length;
      if (gate) {
        const aborted = new Promise<never>((_, reject) => {
          signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
        });
        aborted.catch(() => {});
        await Promise.race([gate.promise, aborted]);
      }
      if (self.failWith) throw self.failWith;
      if (outputKind(job.options?.format) === "text") {
        const text = `# Solid page ${call}\n\nA ${job.colorScheme} page of ${job.url}.\n`;
        return {
          image: new TextEncoder().encode(text),
          format: job.options!.format!,
          strategy: "test-solid",
          targetStatus: 200,
        };
      }
      const { width, height } = VIEWPORTS[job.deviceType];
      const shade = job.colorScheme === "dark" ? 16 + call : 240 - call;
      return {
        image: solidPng(width, height, [shade, shade, shade]),
        format: "png",
        strategy: "test-solid",
        targetStatus: options.targetStatus === undefined ? 200 : options.targetStatus,
      };
    },
    status(): CaptureBackendStatus[] {
      return [{ name: "test-solid", state: "ready" }];
    },
    close: () => Promise.resolve(),
  };
  return self;
}

/** The grey level of a solidPng image (its first pixel's red channel). */
export function shadeOf(png: Uint8Array): number {
  const idat = pngChunks(png).find((chunk) => chunk.type === "IDAT");
  if (!idat) throw new Error("no IDAT chunk");
  return inflateSync(idat.data)[1];
}
