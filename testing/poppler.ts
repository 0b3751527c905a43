/**
 * poppler-utils (pdfinfo, pdftotext, pdftoppm from /usr/bin) run on a PDF's bytes: an outside
 * reader's word on what the PDF producer wrote, for its tests and its bench.
 */
import { decodePng } from "./capture_fixtures.ts";

async function run(tool: string, args: string[], pdf: Uint8Array): Promise<Uint8Array> {
  const file = await Deno.makeTempFile({ suffix: ".pdf" });
  try {
    await Deno.writeFile(file, pdf);
    const output = await new Deno.Command(`/usr/bin/${tool}`, {
      args: [...args.map((arg) => arg === "{}" ? file : arg)],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!output.success) {
      throw new Error(`${tool} failed: ${new TextDecoder().decode(output.stderr)}`);
    }
    return output.stdout;
  } finally {
    await Deno.remove(file);
  }
}

/** pdfinfo's page count and page size in points (of the first page, or of page `page`). */
export async function pdfInfo(
  pdf: Uint8Array,
  page = 1,
): Promise<{ pages: number; width: number; height: number; text: string }> {
  const args = ["-f", String(page), "-l", String(page), "{}"];
  const text = new TextDecoder().decode(await run("pdfinfo", args, pdf));
  const pages = Number(/^Pages:\s+(\d+)/m.exec(text)?.[1]);
  const size = new RegExp(`^Page\\s+${page} size:\\s+([\\d.]+) x ([\\d.]+) pts`, "m").exec(text);
  if (!size) throw new Error(`pdfinfo gave no size of page ${page}:\n${text}`);
  return { pages, width: Number(size[1]), height: Number(size[2]), text };
}

/** The PDF's text as pdftotext extracts it (UTF-8, pages separated by form feeds). */
export async function pdfText(pdf: Uint8Array): Promise<string> {
  return new TextDecoder().decode(await run("pdftotext", ["-enc", "UTF-8", "{}", "-"], pdf));
}

/** Page `page` rendered at `dpi` (48 dpi: 1 px for 2 CSS px), decoded. */
export async function pdfPage(pdf: Uint8Array, options: { page?: number; dpi?: number } = {}) {
  const { page = 1, dpi = 48 } = options;
  const args = ["-png", "-r", String(dpi), "-f", String(page), "-l", String(page), "{}"];
  return decodePng(await run("pdftoppm", args, pdf));
}
