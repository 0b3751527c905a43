// @ts-check
/// <reference no-default-lib="true" />
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/// <reference lib="esnext" />
// The current design handed over: "Copy as API request" gives the request that answers the
// same picture (POST /api/screenshot for a capture, POST /api/frame for an own image or a card),
// "Copy link" this page with the design in its hash.
import { minimalFields } from "../frame/design.js";
import { sourceCapture, sourceName } from "./frame.js";
import { frameFields, linkOf } from "./frame_form.js";
import { byId } from "./shared.js";
import { setStatus } from "./status.js";

const els = {
  copyApi: byId("copy-api", HTMLButtonElement),
  copyLink: byId("copy-link", HTMLButtonElement),
  output: byId("api-request", HTMLOutputElement),
};

/**
 * The request for the current design: the capture's own body with `frame` for a capture,
 * else the `frame` part of an upload to POST /api/frame.
 */
export function apiRequestText() {
  const frame = minimalFields(frameFields());
  const capture = sourceCapture();
  const origin = location.origin;
  if (capture) {
    return `POST ${origin}/api/screenshot\nContent-Type: application/json\nAccept: image/png\n\n` +
      JSON.stringify({ ...capture, frame }, null, 2);
  }
  const file = sourceName() ?? "image";
  return `POST ${origin}/api/frame\nContent-Type: multipart/form-data\n\n` +
    `image=@${file}.png\nframe=${JSON.stringify(frame)}`;
}

/**
 * Shows `text` and puts it on the clipboard where the browser allows it.
 * @param {string} text
 * @param {string} what for the status line
 */
async function showAndCopy(text, what) {
  els.output.hidden = false;
  els.output.textContent = text;
  try {
    await navigator.clipboard.writeText(text);
    setStatus(`Copied ${what} to the clipboard.`);
  } catch {
    // Shown below either way; copying is a convenience the browser may refuse.
    setStatus(`The browser did not allow copying; ${what} is shown under the frame form.`);
  }
}

els.copyApi.addEventListener("click", () => {
  void showAndCopy(apiRequestText(), "the API request");
});
els.copyLink.addEventListener("click", () => {
  void showAndCopy(linkOf(minimalFields(frameFields())), "the link");
});
