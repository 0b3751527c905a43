/**
 * Debian's documentation under /usr/share/doc (real HTML shipped with the distribution's
 * packages), served on loopback at /doc/...: the corpus of long documentation pages the benches
 * read.
 */

export const DEBIAN_DOCS = "/usr/share/doc";

export const DOC_TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  css: "text/css",
  js: "text/javascript",
  png: "image/png",
  gif: "image/gif",
  svg: "image/svg+xml",
};

/** The file at `path` (/doc/<package>/...) from /usr/share/doc, or a 404. */
export async function debianDoc(path: string): Promise<Response> {
  if (!path.startsWith("/doc/") || path.includes("..")) return new Response(null, { status: 404 });
  try {
    const body = await Deno.readFile(`${DEBIAN_DOCS}/${path.slice(5)}`);
    const type = DOC_TYPES[path.split(".").pop() ?? ""] ?? "application/octet-stream";
    return new Response(body, { headers: { "content-type": type } });
  } catch {
    return new Response(null, { status: 404 });
  }
}
