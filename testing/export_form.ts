import { encodeFixture, screenshotPixels } from "./codecs.ts";

/** The multipart body of POST /api/export: a synthetic screenshot as PNG, a format and a preset. */
export async function exportForm(format: string, preset: string, width = 320, height = 200) {
  const form = new FormData();
  const png = await encodeFixture(screenshotPixels(width, height), "png");
  form.set("image", new Blob([png as Uint8Array<ArrayBuffer>], { type: "image/png" }), "a.png");
  form.set("format", format);
  form.set("qualityPreset", preset);
  return form;
}
