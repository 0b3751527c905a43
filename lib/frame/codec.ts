/**
 * The frame's pixels in and out on the server: an image (a capture, an upload, a page's icon)
 * decoded upright to straight RGBA, and the finished frame encoded, with the export's codec path
 * (libvips through sharp when it loads, the wasm codecs otherwise) and its presets.
 */
import { CodecError } from "../codecs/errors.ts";
import type { EncoderName } from "../codecs/exporter.ts";
import { planExport } from "../codecs/plan.ts";
import { orientPixels, type Pixels } from "../codecs/pixels.ts";
import type { ExportFormat, QualityPreset } from "../codecs/presets.ts";
import { PALETTE, PRESETS } from "../codecs/presets.ts";
import { loadSharp, lossy, type Sharp } from "../codecs/sharp.ts";
import { decodeWasm, encodeWasm } from "../codecs/wasm.ts";
import { withoutPngChunks } from "../codecs/png_encoder.ts";
import type { Rgba } from "./raster.js";

/** The file a frame is written as. */
export interface FrameOutput {
  format: ExportFormat;
  preset: QualityPreset;
  /** JPEG and WebP quality 1..100 instead of the preset's (a capture's `quality`). */
  quality?: number;
}

export interface FrameCodec {
  readonly encoder: EncoderName;
  /** PNG, JPEG or WebP bytes (checked like an export upload) as upright RGBA. */
  decode(bytes: Uint8Array): Promise<Rgba>;
  /** An image sharp can read (GIF, SVG, AVIF too) as RGBA, or null where only wasm runs. */
  decodeAny(bytes: Uint8Array): Promise<Rgba | null>;
  encode(image: Rgba, output: FrameOutput): Promise<Uint8Array<ArrayBuffer>>;
}

const rgbaOf = (pixels: Pixels): Rgba => ({
  width: pixels.width,
  height: pixels.height,
  data: new Uint8ClampedArray(pixels.data.buffer, pixels.data.byteOffset, pixels.data.byteLength),
});

function bytesOf(output: Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(output.buffer as ArrayBuffer, output.byteOffset, output.byteLength);
}

/** Whether any pixel is not fully opaque (an opaque PNG is written without its alpha). */
function translucent(image: Rgba): boolean {
  const data = image.data;
  for (let i = 3; i < data.length; i += 4) if (data[i] !== 255) return true;
  return false;
}

/** The codecs of the export path named `encoder` (sharp falls back to wasm if it cannot load). */
export async function frameCodecFor(encoder: EncoderName): Promise<FrameCodec> {
  const loaded = encoder === "sharp" ? await loadSharp() : null;
  if (loaded && "sharp" in loaded) return sharpCodec(loaded.sharp);
  return wasmCodec();
}

function wasmCodec(): FrameCodec {
  return {
    encoder: "wasm",
    async decode(bytes) {
      const plan = planExport(bytes, { format: "png", preset: "high" });
      const pixels = await decodeWasm(plan.kind, bytes, plan.cmyk);
      return rgbaOf(orientPixels(pixels, plan.orientation));
    },
    decodeAny: () => Promise.resolve(null),
    async encode(image, output) {
      const pixels = {
        data: new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.byteLength),
        width: image.width,
        height: image.height,
      };
      return await encodeWasm(pixels, { ...output, hasAlpha: translucent(image), fast: true });
    },
  };
}

function sharpCodec(sharp: Sharp): FrameCodec {
  const toRgba = async (input: ReturnType<Sharp>): Promise<Rgba> => {
    const { data, info } = await input.toColourspace("srgb").ensureAlpha().raw()
      .toBuffer({ resolveWithObject: true });
    return {
      width: info.width,
      height: info.height,
      data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength),
    };
  };
  return {
    encoder: "sharp",
    async decode(bytes) {
      planExport(bytes, { format: "png", preset: "high" });
      try {
        // rotate() with no angle applies the EXIF orientation, as viewers show the image.
        return await toRgba(sharp(bytes, { animated: false }).rotate());
      } catch (error) {
        throw new CodecError("decode", error);
      }
    },
    async decodeAny(bytes) {
      try {
        return await toRgba(sharp(bytes, { animated: false, limitInputPixels: 4096 * 4096 }));
      } catch {
        return null;
      }
    },
    async encode(image, output) {
      const raw = { width: image.width, height: image.height, channels: 4 as const };
      let pipeline = sharp(image.data, { raw });
      try {
        if (output.format !== "png") return bytesOf(await lossy(pipeline, output).toBuffer());
        if (!translucent(image)) pipeline = pipeline.removeAlpha();
        const png = PRESETS[output.preset].png;
        const options = png.mode === "palette"
          ? { palette: true, ...PALETTE, compressionLevel: png.level }
          : { compressionLevel: png.level, adaptiveFiltering: true, palette: false };
        const file = bytesOf(await pipeline.png({ ...options, force: true }).toBuffer());
        // libpng writes the pixel density (pHYs), which no other output carries either.
        return withoutPngChunks(file, ["pHYs"]);
      } catch (error) {
        throw new CodecError("encode", error);
      }
    },
  };
}
