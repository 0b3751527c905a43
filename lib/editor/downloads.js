// @ts-check
/// <reference no-default-lib="true" />
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/// <reference lib="esnext" />
// "Take the page as": the capture form's page as a PDF, a recording or its text, downloaded as
// a file beside the image. The canvas is left alone: this is not something to frame.
import { captureBody } from "./capture_form.js";
import { byId, formatBytes } from "./shared.js";
import { captureAllowed, lockWhileBusy, request, withProgress } from "./status.js";

const els = {
  form: byId("capture-form", HTMLFormElement),
  format: byId("take-format", HTMLSelectElement),
  download: byId("take-download", HTMLButtonElement),
  result: byId("take-result", HTMLElement),
  link: byId("take-link", HTMLAnchorElement),
};

/**
 * The capture fields that shape an image only, by the kind of output: the API refuses them
 * with these (400). A recording keeps its scale: it is shot at the viewport's pixels.
 * @type {Record<string, string[]>}
 */
const IMAGE_ONLY = {
  pdf: ["fullPage", "transparent", "scale"],
  video: ["fullPage", "transparent"],
  text: ["fullPage", "transparent", "scale"],
};

/**
 * The chosen output, as the page renders it on each option (the API's own values).
 * @returns {{ label: string, format: string, kind: string, accept: string, ext: string,
 *   onePage: boolean }}
 */
function choice() {
  const option = els.format.selectedOptions[0];
  const data = option.dataset;
  return {
    label: option.text.trim(),
    format: data.format ?? "",
    kind: data.kind ?? "",
    accept: data.accept ?? "",
    ext: data.ext ?? "",
    onePage: data.onePage === "true",
  };
}

/**
 * What a raw answer's headers say beyond its size: a PDF's pages, a recording's length, the cache.
 * @param {Headers} headers
 */
function facts(headers) {
  const pages = Number(headers.get("X-Pdf-Pages"));
  const ms = Number(headers.get("X-Duration-Ms"));
  return [
    ...(pages > 0 ? [`${pages} ${pages === 1 ? "page" : "pages"}`] : []),
    ...(ms > 0 ? [`${Math.round(ms / 100) / 10} s`] : []),
    headers.get("X-Cache") === "hit" ? "from the cache" : "fresh",
  ].join(", ");
}

els.download.addEventListener("click", () => {
  // The same checks as Capture: a URL is needed, sizes within their bounds.
  if (!els.form.reportValidity()) return;
  const wanted = choice();
  const sent = captureBody(new FormData(els.form));
  for (const field of IMAGE_ONLY[wanted.kind] ?? []) delete sent[field];
  const body = {
    ...sent,
    format: wanted.format,
    ...(wanted.onePage && { pdf: { onePage: true } }),
  };
  withProgress(`Taking ${body.url} as ${wanted.label}`, async (signal) => {
    const res = await request("/api/screenshot", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: wanted.accept },
      body: JSON.stringify(body),
      signal,
    });
    const blob = await res.blob();
    signal.throwIfAborted();
    // The service took the URL, so it parses.
    const name = `${new URL(body.url).hostname}.${wanted.ext}`;
    if (els.link.href) URL.revokeObjectURL(els.link.href);
    els.link.href = URL.createObjectURL(blob);
    els.link.download = name;
    els.link.textContent = `Download ${name} again`;
    els.link.hidden = false;
    els.link.click();
    els.result.textContent = `${name}: ${formatBytes(blob.size)} (${facts(res.headers)}).`;
    return `Downloaded ${name} (${formatBytes(blob.size)}).`;
  });
});

lockWhileBusy(els.download, captureAllowed);
