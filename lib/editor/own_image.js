// @ts-check
/// <reference no-default-lib="true" />
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/// <reference lib="esnext" />
// Your own image, three ways: paste anywhere on the page, drop it (the preview shows where),
// or pick a file. It is checked here first, so a wrong file gets a message, not a failed export.
import { setSource } from "./frame.js";
import { byId, formatBytes } from "./shared.js";
import {
  ApiFailure,
  clearError,
  isBusy,
  lockWhileBusy,
  showError,
  withProgress,
} from "./status.js";

const els = {
  file: byId("image-file", HTMLInputElement),
  preview: byId("drop-zone", HTMLElement),
  dropHint: byId("drop-hint", HTMLElement),
};

/** What the export accepts, by the file's first bytes (a name or type can say anything). */
const SIGNATURES = [
  { type: "PNG", at: 0, bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: "JPEG", at: 0, bytes: [0xff, 0xd8, 0xff] },
  { type: "WebP", at: 8, bytes: [0x57, 0x45, 0x42, 0x50] }, // "WEBP" after "RIFF" and a size
];

/** @param {Uint8Array} head */
function imageKind(head) {
  const webpRiff = [0x52, 0x49, 0x46, 0x46].every((byte, i) => head[i] === byte);
  for (const { type, at, bytes } of SIGNATURES) {
    if (type === "WebP" && !webpRiff) continue;
    if (bytes.every((byte, i) => head[at + i] === byte)) return type;
  }
  return null;
}

/**
 * A name for the download: the file's name without its extension, safe in a file name.
 * @param {string} name
 */
function baseName(name) {
  const stem = name.replace(/\.[a-z0-9]{1,5}$/i, "").replace(/[^\w.-]+/g, "-");
  return stem.replace(/^-+|-+$/g, "").slice(0, 60) || "image";
}

/**
 * @param {string} error
 * @param {string} hint
 */
const refuse = (error, hint) => {
  clearError();
  showError(new ApiFailure({ error, hint }, 0));
};

/**
 * Checks `file`, decodes it and frames it exactly like a capture.
 * @param {File} file
 * @param {string} how where it came from, for the status line ("pasted", "dropped", "picked")
 */
export async function openImage(file, how) {
  const label = file.name || `the ${how} image`;
  if (isBusy()) {
    return refuse(
      `${label} was not opened: the editor is still working.`,
      "Wait until it is done, or press Cancel, then try again.",
    );
  }
  const limit = Number(els.file.dataset.maxBytes);
  if (file.size > limit) {
    return refuse(
      `${label} is ${formatBytes(file.size)}, over the ${formatBytes(limit)} upload limit.`,
      "Export uploads the framed image to the service: crop or scale it down first.",
    );
  }
  let head;
  try {
    head = new Uint8Array(await file.slice(0, 12).arrayBuffer());
  } catch {
    return refuse(`${label} could not be read.`, "It may have been moved or deleted: try again.");
  }
  const kind = imageKind(head);
  if (!kind) {
    return refuse(
      `${label} is not an image the editor can frame.`,
      "Use a PNG, JPEG or WebP image: a screenshot file, or an image copied from another app.",
    );
  }
  await withProgress(`Opening ${label}`, async () => {
    let bitmap;
    try {
      bitmap = await createImageBitmap(file);
    } catch {
      throw new ApiFailure({
        error: `${label} looks like a ${kind} image but could not be decoded.`,
        hint: "The file may be damaged or cut short: save it again and retry.",
      }, 0);
    }
    setSource(bitmap, baseName(file.name || how));
    return `Framed ${label} (${bitmap.width}×${bitmap.height}, ${how}).`;
  });
}

/**
 * The first file a clipboard or drop carries, if any.
 * @param {DataTransfer | null} data
 */
function firstFile(data) {
  if (!data) return null;
  if (data.files.length > 0) return data.files[0];
  for (const item of data.items) {
    const file = item.kind === "file" ? item.getAsFile() : null;
    if (file) return file;
  }
  return null;
}

/** @param {EventTarget | null} target */
const isEditable = (target) =>
  target instanceof HTMLElement &&
  (target.isContentEditable || target.matches("input:not([type=file]), textarea"));

document.addEventListener("paste", (event) => {
  const file = firstFile(event.clipboardData);
  if (file) {
    event.preventDefault();
    openImage(file, "pasted");
    return;
  }
  // Text pasted into a field is just typing; pasted onto the page it was meant as an image.
  if (isEditable(event.target)) return;
  refuse(
    "The clipboard holds no image.",
    "Copy a screenshot (or an image in another app) first, then paste it here.",
  );
});

// Files dragged over the page: the preview lights up as the place to drop them. Enter and leave
// fire for every child element, so a counter tells when the drag really left the window.
let dragDepth = 0;
/** @param {DragEvent} event */
const carriesFiles = (event) => event.dataTransfer?.types.includes("Files") ?? false;
/** @param {boolean} on */
function showDropTarget(on) {
  els.preview.classList.toggle("dragging", on);
  els.dropHint.hidden = !on;
}

document.addEventListener("dragenter", (event) => {
  if (!carriesFiles(event)) return;
  dragDepth++;
  showDropTarget(true);
});
document.addEventListener("dragleave", (event) => {
  if (!carriesFiles(event)) return;
  dragDepth = Math.max(0, dragDepth - 1);
  if (dragDepth === 0) showDropTarget(false);
});
document.addEventListener("dragover", (event) => {
  if (!carriesFiles(event)) return;
  // Without this the browser would open the file itself, leaving the editor.
  event.preventDefault();
  if (event.dataTransfer) event.dataTransfer.dropEffect = "copy";
});
document.addEventListener("drop", (event) => {
  if (!carriesFiles(event)) return;
  event.preventDefault();
  dragDepth = 0;
  showDropTarget(false);
  const file = firstFile(event.dataTransfer);
  if (file) openImage(file, "dropped");
});

els.file.addEventListener("change", () => {
  const file = els.file.files?.[0];
  // Cleared, so picking the same file again still fires a change.
  if (file) openImage(file, "picked").finally(() => (els.file.value = ""));
});
lockWhileBusy(els.file);
