/**
 * The editor's static files, embedded in the module graph with text and bytes imports, so
 * `deno compile` and Deno Deploy carry them without file-system access at run time. The served
 * folder mirrors the repository (`editor/` for lib/editor, `frame/` for lib/frame, and the one
 * browser-safe codec module, `codecs/png_chunk.js`), so the editor's relative imports resolve
 * the same way on disk and when served.
 */
import { createHash } from "node:crypto";
import type { EditorAssetUrls } from "./page.ts";
import EDITOR_CSS from "./editor.css" with { type: "text" };
import EDITOR_JS from "./editor.js" with { type: "text" };
import API_REQUEST_JS from "./api_request.js" with { type: "text" };
import CAPTURE_FORM_JS from "./capture_form.js" with { type: "text" };
import CARD_JS from "./card.js" with { type: "text" };
import DOWNLOADS_JS from "./downloads.js" with { type: "text" };
import FRAME_JS from "./frame.js" with { type: "text" };
import FRAME_FORM_JS from "./frame_form.js" with { type: "text" };
import OWN_IMAGE_JS from "./own_image.js" with { type: "text" };
import PNG_FILE_JS from "./png_file.js" with { type: "text" };
import POST_JS from "./post.js" with { type: "text" };
import SETTINGS_JS from "./settings.js" with { type: "text" };
import SHARED_JS from "./shared.js" with { type: "text" };
import STATUS_JS from "./status.js" with { type: "text" };
import DESIGN_JS from "../frame/design.js" with { type: "text" };
import DEVICES_JS from "../frame/devices.js" with { type: "text" };
import FONT_JS from "../frame/font.js" with { type: "text" };
import LAYOUT_JS from "../frame/layout.js" with { type: "text" };
import RASTER_JS from "../frame/raster.js" with { type: "text" };
import RENDER_JS from "../frame/render.js" with { type: "text" };
import TEXT_JS from "../frame/text.js" with { type: "text" };
import PNG_CHUNK_JS from "../codecs/png_chunk.js" with { type: "text" };
import { FRAME_FONT_FILES } from "../frame/fonts.ts";

/** One static file, served at a URL that changes whenever its bytes do. */
export interface EditorAsset {
  path: string;
  body: string | Uint8Array<ArrayBuffer>;
  contentType: string;
}

/**
 * The browser modules by their path in the served folder (as in the repository, under lib/);
 * the first is the entry the page loads.
 */
export const EDITOR_MODULES: Record<string, string> = {
  "editor/editor.js": EDITOR_JS,
  "editor/api_request.js": API_REQUEST_JS,
  "editor/capture_form.js": CAPTURE_FORM_JS,
  "editor/card.js": CARD_JS,
  "editor/downloads.js": DOWNLOADS_JS,
  "editor/frame.js": FRAME_JS,
  "editor/frame_form.js": FRAME_FORM_JS,
  "editor/own_image.js": OWN_IMAGE_JS,
  "editor/png_file.js": PNG_FILE_JS,
  "editor/post.js": POST_JS,
  "editor/settings.js": SETTINGS_JS,
  "editor/shared.js": SHARED_JS,
  "editor/status.js": STATUS_JS,
  "frame/design.js": DESIGN_JS,
  "frame/devices.js": DEVICES_JS,
  "frame/font.js": FONT_JS,
  "frame/layout.js": LAYOUT_JS,
  "frame/raster.js": RASTER_JS,
  "frame/render.js": RENDER_JS,
  "frame/text.js": TEXT_JS,
  "codecs/png_chunk.js": PNG_CHUNK_JS,
};

/** The frame's fonts by their path in the served folder, in the renderer's fallback order. */
export const EDITOR_FONTS: Record<string, Uint8Array> = Object.fromEntries(
  FRAME_FONT_FILES.map((file) => [`frame/fonts/${file.name}`, file.bytes]),
);

// 12 hex digits (48 bits) of SHA-256: collisions between two versions are not a practical risk.
const HASH_HEX_DIGITS = 12;
const JS = "text/javascript; charset=utf-8";
const WOFF = "font/woff";

const digest = (...parts: Array<string | Uint8Array>) => {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest("hex").slice(0, HASH_HEX_DIGITS);
};

/** The hash that names the assets' folder: every module and font, each with its path. */
export function assetFolderHash(): string {
  const parts: Array<string | Uint8Array> = [];
  for (const [path, text] of Object.entries(EDITOR_MODULES)) parts.push(`${path}\0${text}\0`);
  for (const [path, bytes] of Object.entries(EDITOR_FONTS)) parts.push(`${path}\0`, bytes);
  return digest(...parts);
}

/**
 * The modules, fonts and stylesheet at content-hashed paths, and those paths for the page
 * (computed once per call). Modules and fonts share one folder named by the hash of all of
 * them, so relative imports resolve to the same version and a change to any one gives them all
 * new URLs.
 */
export function editorAssets() {
  const folder = `/assets/editor.${assetFolderHash()}`;
  const modules: EditorAsset[] = Object.entries(EDITOR_MODULES).map(([path, body]) => ({
    path: `${folder}/${path}`,
    body,
    contentType: JS,
  }));
  const fonts: EditorAsset[] = Object.entries(EDITOR_FONTS).map(([path, bytes]) => ({
    path: `${folder}/${path}`,
    body: new Uint8Array(bytes),
    contentType: WOFF,
  }));
  const stylesheet: EditorAsset = {
    path: `/assets/editor.${digest(EDITOR_CSS)}.css`,
    body: EDITOR_CSS,
    contentType: "text/css; charset=utf-8",
  };
  const urls: EditorAssetUrls = {
    script: modules[0].path,
    modules: modules.slice(1).map((module) => module.path),
    fonts: fonts.map((font) => font.path),
    stylesheet: stylesheet.path,
  };
  return { urls, files: [...modules, ...fonts, stylesheet] };
}
