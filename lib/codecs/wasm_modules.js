/* @ts-self-types="./wasm_modules.d.ts" */
// The codecs' WebAssembly, compiled through the module graph (source phase imports): no file or
// network access at run time, so the wasm path works with no permissions and on Deploy.
// Plain JS because TypeScript cannot parse `import source` yet; the types live beside it.
import source jpegEncoder from "@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm";
import source jpegDecoder from "@jsquash/jpeg/codec/dec/mozjpeg_dec.wasm";
import source webpEncoder from "@jsquash/webp/codec/enc/webp_enc_simd.wasm";
import source webpDecoder from "@jsquash/webp/codec/dec/webp_dec.wasm";
import source pngDecoder from "@jsquash/png/codec/pkg/squoosh_png_bg.wasm";
import source imagequant from "libimagequant-wasm/wasm/libimagequant_wasm_bg.wasm";
import source lcms from "lcms-wasm/dist/lcms.wasm";
import source jpegTurbo from "@cwasm/jpeg-turbo/jpeg-turbo.wasm";
import source libdeflate from "./vendor/libdeflate.wasm";

export {
  imagequant,
  jpegDecoder,
  jpegEncoder,
  jpegTurbo,
  lcms,
  libdeflate,
  pngDecoder,
  webpDecoder,
  webpEncoder,
};
