/**
 * The editor's static files, embedded in the module graph with text imports (stable in Deno 2.9),
 * so `deno compile` and Deno Deploy carry them without file-system access at run time.
 */
import { createHash } from "node:crypto";
import EDITOR_CSS from "./editor.css" with { type: "text" };
import EDITOR_JS from "./editor.js" with { type: "text" };

/** One static file, served at a URL that changes whenever its bytes do. */
export interface EditorAsset {
  path: string;
  body: string;
  contentType: string;
}

// 12 hex digits (48 bits) of SHA-256: collisions between two versions are not a practical risk.
const HASH_HEX_DIGITS = 12;

function hashed(name: string, ext: string, body: string, contentType: string): EditorAsset {
  const hash = createHash("sha256").update(body).digest("hex").slice(0, HASH_HEX_DIGITS);
  return { path: `/assets/${name}.${hash}.${ext}`, body, contentType };
}

/** The script and stylesheet with their content-hashed paths (computed once per call). */
export function editorAssets() {
  return {
    script: hashed("editor", "js", EDITOR_JS, "text/javascript; charset=utf-8"),
    stylesheet: hashed("editor", "css", EDITOR_CSS, "text/css; charset=utf-8"),
  };
}
