/**
 * Re-vendors libdeflate's WebAssembly (lib/codecs/vendor/libdeflate.wasm) from the npm package
 * `libdeflate` at the version pinned in lib/codecs/vendor/libdeflate.json: `deno run -A
 * scripts/vendor_libdeflate.ts`. Needs `npm` and `tar` on the PATH and the npm registry.
 *
 * The package ships its module inside Emscripten glue that, under Deno, takes the Node.js road:
 * it installs process-wide `uncaughtException` and `unhandledRejection` handlers. So only the
 * module is kept, with the minified names of the exports and imports the glue maps it to, and
 * lib/codecs/libdeflate.ts instantiates it with its own two imports.
 */
import { sha256Hex } from "../lib/hash.ts";
import { withNpmPackage } from "./npm_package.ts";

const VENDOR = new URL("../lib/codecs/vendor/", import.meta.url);
const GLUE = "dist/libdeflate.wasm.mjs";

/** What lib/codecs/libdeflate.ts needs to know about the module. */
export interface LibdeflateManifest {
  package: string;
  version: string;
  sha256: string;
  /** Export names: `memory`, `init` (static constructors) and the C functions used. */
  exports: Record<string, string>;
  /** Import names: the heap-growth and large-copy helpers, under module "a". */
  imports: { module: string; resizeHeap: string; memcpyBig: string };
}

const C_FUNCTIONS = {
  malloc: "_malloc",
  free: "_free",
  allocCompressor: "_libdeflate_alloc_compressor",
  freeCompressor: "_libdeflate_free_compressor",
  deflateCompress: "_libdeflate_deflate_compress",
  deflateCompressBound: "_libdeflate_deflate_compress_bound",
} as const;

function match(glue: string, pattern: RegExp, what: string): string {
  const found = glue.match(pattern);
  if (!found) throw new Error(`the glue no longer has ${what}: update this script`);
  return found[1];
}

/** The module and its names, read out of the package's Emscripten glue. */
export function fromGlue(
  glue: string,
): { wasm: Uint8Array<ArrayBuffer>; exports: Record<string, string> } & {
  imports: LibdeflateManifest["imports"];
} {
  const base64 = match(glue, /data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/, "a module");
  const wasm = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const exports: Record<string, string> = {
    memory: match(glue, /wasmMemory=Module\["asm"\]\["(\w+)"\]/, "the memory export"),
    init: match(glue, /___wasm_call_ctors=Module\["___wasm_call_ctors"\]=asm\["(\w+)"\]/, "init"),
  };
  for (const [name, symbol] of Object.entries(C_FUNCTIONS)) {
    exports[name] = match(
      glue,
      new RegExp(`${symbol}=Module\\["${symbol}"\\]=asm\\["(\\w+)"\\]`),
      symbol,
    );
  }
  const imports = {
    module: match(glue, /info=\{"(\w+)":asmLibraryArg/, "the import module"),
    resizeHeap: match(glue, /"(\w+)":_emscripten_resize_heap/, "emscripten_resize_heap"),
    memcpyBig: match(glue, /"(\w+)":_emscripten_memcpy_big/, "emscripten_memcpy_big"),
  };
  return { wasm, exports, imports };
}

if (import.meta.main) {
  const manifestUrl = new URL("libdeflate.json", VENDOR);
  const pinned: LibdeflateManifest = JSON.parse(await Deno.readTextFile(manifestUrl));
  const spec = `${pinned.package}@${pinned.version}`;
  await withNpmPackage(spec, async (dir) => {
    const { wasm, exports, imports } = fromGlue(await Deno.readTextFile(`${dir}/${GLUE}`));
    await Deno.writeFile(new URL("libdeflate.wasm", VENDOR), wasm);
    await Deno.copyFile(`${dir}/LICENSE.txt`, new URL("libdeflate.LICENSE.txt", VENDOR));
    const manifest = { ...pinned, sha256: await sha256Hex(wasm), exports, imports };
    await Deno.writeTextFile(manifestUrl, JSON.stringify(manifest, null, 2) + "\n");
    console.log(`${spec}: libdeflate.wasm (${wasm.length} bytes), sha256 ${manifest.sha256}`);
  });
}
