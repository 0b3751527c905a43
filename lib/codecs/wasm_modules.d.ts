/** MozJPEG encoder (jSquash). */
export declare const jpegEncoder: WebAssembly.Module;
/** MozJPEG decoder (jSquash). */
export declare const jpegDecoder: WebAssembly.Module;
/** libwebp encoder, SIMD build (jSquash picks its SIMD glue on every runtime Deno supports). */
export declare const webpEncoder: WebAssembly.Module;
/** libwebp decoder (jSquash). */
export declare const webpDecoder: WebAssembly.Module;
/** PNG decoder (jSquash, Rust png crate). */
export declare const pngDecoder: WebAssembly.Module;
/** libimagequant 4 (Rust), wasm-bindgen build of `libimagequant-wasm`. */
export declare const imagequant: WebAssembly.Module;
/** Little CMS 2 (`lcms-wasm`, Emscripten build): ICC conversions of CMYK and grey uploads. */
export declare const lcms: WebAssembly.Module;
/** libjpeg-turbo's TurboJPEG decoder (`@cwasm/jpeg-turbo`): CMYK samples of four-component JPEGs. */
export declare const jpegTurbo: WebAssembly.Module;
/** libdeflate, raw DEFLATE only (`libdeflate` on npm, vendored by scripts/vendor_libdeflate.ts). */
export declare const libdeflate: WebAssembly.Module;
