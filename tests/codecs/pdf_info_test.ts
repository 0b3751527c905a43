/**
 * codecs/pdf_info.ts on PDFs written here in Chromium's (Skia's) shape: a classic xref table, a
 * page tree nested in eights with the count at its root, MediaBoxes on the pages or inherited;
 * and the refusals (cross-reference streams, encryption, incremental updates, broken files). The
 * same reader on PDFs Chromium prints is checked against pdfinfo in
 * tests/capture/page/print_pdf_e2e_test.ts.
 */
import assert from "node:assert/strict";
import { PdfInfoError, readPdfInfo } from "../../lib/codecs/pdf_info.ts";

/** A PDF of `objects` (numbered from 1) with a correct xref table and `trailer` entries. */
function buildPdf(objects: string[], trailer = "/Root 1 0 R"): Uint8Array {
  let body = "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n";
  const offsets = objects.map((object, i) => {
    const offset = body.length;
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
    return offset;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  body += offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("");
  body += `trailer\n<</Size ${objects.length + 1}\n${trailer}>>\nstartxref\n${xref}\n%%EOF`;
  return Uint8Array.from(body, (c) => c.charCodeAt(0));
}

const A4 = "/MediaBox [0 0 595.91998 841.91998]";

/** Catalog (1), root Pages (2) over `count` pages in nodes of eight, as Skia writes them. */
function pageTree(count: number, options: { rootExtra?: string; pageExtra?: string } = {}) {
  const objects = ["<</Type /Catalog\n/Pages 2 0 R>>", ""];
  const node = (kids: number[], parent: number, total: number) =>
    `<</Type /Pages\n/Count ${total}\n/Parent ${parent} 0 R\n/Kids [${
      kids.map((k) => `${k} 0 R`).join(" ")
    }]>>`;
  const leaves: number[] = [];
  for (let i = 0; i < count; i++) {
    objects.push(""); // filled once the parent is known
    leaves.push(objects.length);
  }
  const groups: number[] = [];
  for (let i = 0; i < leaves.length; i += 8) {
    const kids = leaves.slice(i, i + 8);
    objects.push(node(kids, 2, kids.length));
    groups.push(objects.length);
    for (const kid of kids) {
      objects[kid - 1] = `<</Type /Page\n/Resources <</ProcSet [/PDF /Text]\n/ExtGState ` +
        `<</G3 3 0 R>>>>\n${
          options.pageExtra ?? A4
        }\n/Contents 3 0 R\n/Parent ${objects.length} 0 R>>`;
    }
  }
  objects[1] = `<</Type /Pages\n/Count ${count}\n${options.rootExtra ?? ""}\n/Kids [${
    groups.map((g) => `${g} 0 R`).join(" ")
  }]>>`;
  return objects;
}

Deno.test("a page tree nested in eights: the root's count, the first page's MediaBox", () => {
  const info = readPdfInfo(buildPdf(pageTree(20)));
  assert.deepEqual(info, { pages: 20, firstPage: { width: 595.91998, height: 841.91998 } });
});

Deno.test("a MediaBox inherited from the root Pages node", () => {
  const objects = pageTree(3, { rootExtra: "/MediaBox [0 0 612 792]", pageExtra: "" });
  assert.deepEqual(readPdfInfo(buildPdf(objects)).firstPage, { width: 612, height: 792 });
});

Deno.test("an Info dictionary with strings, escapes and comments is read past", () => {
  const objects = [
    ...pageTree(1),
    "<</Title (a \\(nested\\) (title) with >> inside) % a comment\n/Author <48656c6c6f>>>",
  ];
  const info = readPdfInfo(buildPdf(objects, `/Root 1 0 R\n/Info ${objects.length} 0 R`));
  assert.equal(info.pages, 1);
});

Deno.test("no pages: a count of 0 and no first page", () => {
  const objects = ["<</Type /Catalog /Pages 2 0 R>>", "<</Type /Pages /Count 0 /Kids []>>"];
  assert.deepEqual(readPdfInfo(buildPdf(objects)), { pages: 0, firstPage: null });
});

Deno.test("what it does not read is refused, never guessed", async (t) => {
  const refused = (bytes: Uint8Array, message: RegExp) =>
    assert.throws(
      () => readPdfInfo(bytes),
      (e) => e instanceof PdfInfoError && message.test(e.message),
    );
  const text = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
  const good = buildPdf(pageTree(2));

  await t.step("not a PDF", () => refused(text("<!doctype html>"), /no %PDF- header/));
  await t.step("cut short", () => refused(good.subarray(0, good.length - 30), /startxref/));
  await t.step("a cross-reference stream (compressed object streams)", () => {
    const body = "%PDF-1.5\n1 0 obj\n<</Type /XRef /Size 1 /W [1 2 1]>>\nstream\n";
    refused(text(`${body}endstream\nendobj\nstartxref\n9\n%%EOF`), /cross-reference stream/);
  });
  await t.step("encrypted", () => {
    refused(buildPdf(pageTree(1), "/Root 1 0 R /Encrypt 3 0 R"), /encrypted/);
  });
  await t.step("incrementally updated", () => {
    refused(buildPdf(pageTree(1), "/Root 1 0 R /Prev 10"), /incremental/);
  });
  await t.step("a root that is not a page tree", () => {
    const objects = ["<</Type /Catalog /Pages 2 0 R>>", "<</Type /Page /Count 1>>"];
    refused(buildPdf(objects), /expected \/Type \/Pages/);
  });
  await t.step("a count that is not a number", () => {
    const objects = ["<</Type /Catalog /Pages 2 0 R>>", "<</Type /Pages /Count /Two /Kids []>>"];
    refused(buildPdf(objects), /valid \/Count/);
  });
  await t.step("a page tree that loops", () => {
    const objects = ["<</Type /Catalog /Pages 2 0 R>>", "<</Type /Pages /Count 1 /Kids [2 0 R]>>"];
    refused(buildPdf(objects), /too deep/);
  });
  await t.step("an object not where the table says", () => {
    // The table's entry for object 2 (the root Pages) gives object 1's offset.
    const pdf = new TextDecoder("latin1").decode(buildPdf(pageTree(1)));
    const entries = pdf.slice(pdf.indexOf("\nxref\n") + 1).split("\n");
    refused(text(pdf.replace(entries[4], entries[3])), /object 2 is not at its xref offset/);
  });
  await t.step("a first page without a MediaBox anywhere", () => {
    refused(buildPdf(pageTree(1, { pageExtra: "" })), /MediaBox/);
  });
});
