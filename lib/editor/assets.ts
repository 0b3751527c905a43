/**
 * The editor's static files, embedded in the module graph with text imports (stable in Deno 2.9),
 * so `deno compile` and Deno Deploy carry them without file-system access at run time.
 */
import { createHash } from "node:crypto";
import type { EditorAssetUrls } from "./page.ts";
import EDITOR_CSS from "./editor.css" with { type: "text" };
import EDITOR_JS from "./editor.js" with { type: "text" };
import CAPTURE_FORM_JS from "./capture_form.js" with { type: "text" };
import CARD_JS from "./card.js" with { type: "text" };
import DOWNLOADS_JS from "./downloads.js" with { type: "text" };
import FRAME_JS from "./frame.js" with { type: "text" };
import OWN_IMAGE_JS from "./own_image.js" with { type: "text" };
import POST_JS from "./post.js" with { type: "text" };
import SETTINGS_JS from "./settings.js" with { type: "text" };
import SHARED_JS from "./shared.js" with { type: "text" };
import STATUS_JS from "./status.js" with { type: "text" };

/** One static file, served at a URL that changes whenever its bytes do. */
export interface EditorAsset {
  path: string;
  body: string;
  contentType: string;
}

/** The browser modules by file name; the first is the entry the page loads. */
export const EDITOR_MODULES: Record<string, string> = {
  "editor.js": EDITOR_JS,
  "capture_form.js": CAPTURE_FORM_JS,
  "card.js": CARD_JS,
  "downloads.js": DOWNLOADS_JS,
  "frame.js": FRAME_JS,
  "own_image.js": OWN_IMAGE_JS,
  "post.js": POST_JS,
  "settings.js": SETTINGS_JS,
  "shared.js": SHARED_JS,
  "status.js": STATUS_JS,
};

// 12 hex digits (48 bits) of SHA-256: collisions between two versions are not a practical risk.
const HASH_HEX_DIGITS = 12;
const JS = "text/javascript; charset=utf-8";

const digest = (text: string) =>
  createHash("sha256").update(text).digest("hex").slice(0, HASH_HEX_DIGITS);

/**
 * The modules and stylesheet at content-hashed paths, and those paths for the page (computed
 * once per call). The modules
 * share one folder named by the hash of all of them, so their relative imports resolve to the
 * same version and a change to any one gives them all new URLs.
 */
export function editorAssets() {
  const names = Object.keys(EDITOR_MODULES);
  const folder = digest(names.map((name) => `${name}\0${EDITOR_MODULES[name]}`).join("\0"));
  const modules: EditorAsset[] = names.map((name) => ({
    path: `/assets/editor.${folder}/${name}`,
    body: EDITOR_MODULES[name],
    contentType: JS,
  }));
  const stylesheet: EditorAsset = {
    path: `/assets/editor.${digest(EDITOR_CSS)}.css`,
    body: EDITOR_CSS,
    contentType: "text/css; charset=utf-8",
  };
  const urls: EditorAssetUrls = {
    script: modules[0].path,
    modules: modules.slice(1).map((module) => module.path),
    stylesheet: stylesheet.path,
  };
  return { urls, files: [...modules, stylesheet] };
}
