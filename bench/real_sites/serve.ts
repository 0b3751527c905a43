/**
 * The loopback static server of the real-site corpus. It serves the installed packages
 * (`/npm/<package>/<file>`) and the composed pages (`/pages/<file>`), and keeps every page off
 * the network: in HTML and CSS, each absolute or protocol-relative URL to another host is
 * rewritten to `/cdn/<host>/<path>` on this server, which answers it from an installed npm
 * package when `CDN_FILES` or the Google Fonts mapping knows it, and with 404 otherwise (the
 * page then loads as it would with that host down).
 */
import { extname } from "node:path";
import { MODULES_DIR } from "./install.ts";

const PAGES_DIR = new URL("./pages/", import.meta.url).pathname;

/** CDN URL prefixes (after `/cdn/`) and the installed files or folders that stand in for them. */
export const CDN_FILES: Record<string, string> = {
  "cdn.jsdelivr.net/npm/bootstrap@5.2.3/": "bootstrap/",
  "cdn.jsdelivr.net/npm/bootstrap-icons@1.5.0/": "bootstrap-icons/",
  "cdnjs.cloudflare.com/ajax/libs/SimpleLightbox/2.1.0/simpleLightbox.min.css":
    "simplelightbox/dist/simple-lightbox.min.css",
  "cdnjs.cloudflare.com/ajax/libs/SimpleLightbox/2.1.0/simpleLightbox.min.js":
    "simplelightbox/dist/simple-lightbox.min.js",
  "use.fontawesome.com/releases/v6.3.0/": "@fortawesome/fontawesome-free/",
  // jQuery 3.7.1 stands in for the 1.12.2 of the counter demo: the plugins it loads accept both.
  "code.jquery.com/jquery-1.12.2.min.js": "jquery/dist/jquery.min.js",
  "cdnjs.cloudflare.com/ajax/libs/waypoints/4.0.0/jquery.waypoints.min.js":
    "waypoints/lib/jquery.waypoints.min.js",
};

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".ttf": "font/ttf",
  ".eot": "application/vnd.ms-fontobject",
};

// Another host in a URL: absolute or protocol-relative, after a quote or `(`, or right after
// `=` (an unquoted attribute; not `= //`, a comment in inline script). XML namespaces stay (they
// are names, not fetched).
const FOREIGN_URL = /(["'(]\s*|=)(?:https?:)?\/\/(?!127\.0\.0\.1|localhost|www\.w3\.org)/g;

function offline(text: string): string {
  return text.replace(FOREIGN_URL, "$1/cdn/");
}

/** A Google Fonts stylesheet URL as `@import`s of the matching installed @fontsource files. */
async function googleFonts(url: URL): Promise<string> {
  const imports: string[] = [];
  // css?family=A:400,700i|B  and  css2?family=A:wght@300;400&family=B
  const families = url.searchParams.getAll("family").flatMap((f) => f.split("|"));
  for (const family of families) {
    const [name, spec = "400"] = family.split(":");
    const slug = name.trim().toLowerCase().replace(/[+\s]+/g, "-");
    const styles = spec.replace(/^[a-z,]*@/, "").split(/[,;]/).map((w) => ({
      weight: w.replace(/\D/g, "") || "400",
      italic: /i/.test(w),
    }));
    for (const { weight, italic } of styles) {
      const suffix = italic ? "-italic" : "";
      for (const file of [`${weight}${suffix}.css`, `latin-${weight}${suffix}.css`]) {
        const exists = await Deno.stat(`${MODULES_DIR}@fontsource/${slug}/${file}`).then(
          () => true,
          () => false,
        );
        if (exists) {
          imports.push(`@import url("/npm/@fontsource/${slug}/${file}");`);
          break;
        }
      }
    }
  }
  return imports.join("\n");
}

async function file(path: string): Promise<Response> {
  const type = TYPES[extname(path).toLowerCase()] ?? "application/octet-stream";
  try {
    if (type.startsWith("text/html") || type.startsWith("text/css")) {
      return new Response(offline(await Deno.readTextFile(path)), {
        headers: { "content-type": type },
      });
    }
    return new Response(await Deno.readFile(path), { headers: { "content-type": type } });
  } catch {
    return new Response("not found", { status: 404 });
  }
}

function resolveCdn(rest: string): string | undefined {
  for (const [prefix, target] of Object.entries(CDN_FILES)) {
    if (rest === prefix) return target;
    if (prefix.endsWith("/") && rest.startsWith(prefix)) return target + rest.slice(prefix.length);
  }
}

export interface CorpusServer {
  origin: string;
  /** Every CDN request that no installed package answered (host and path), for the report. */
  missed: Set<string>;
  close(): Promise<void>;
}

/** Starts the corpus server on a free loopback port. */
export function serveCorpus(): CorpusServer {
  const missed = new Set<string>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const url = new URL(req.url);
    const path = decodeURIComponent(url.pathname);
    if (path.includes("..")) return new Response("bad path", { status: 400 });
    if (path.startsWith("/npm/")) return file(MODULES_DIR + path.slice(5));
    if (path.startsWith("/pages/")) return file(PAGES_DIR + path.slice(7));
    if (path.startsWith("/cdn/")) {
      const rest = path.slice(5);
      if (/^fonts\.googleapis\.com\/css2?$/.test(rest)) {
        return new Response(await googleFonts(url), {
          headers: { "content-type": "text/css; charset=utf-8" },
        });
      }
      const target = resolveCdn(rest);
      if (target) return file(MODULES_DIR + target);
      missed.add(rest);
      return new Response("offline", { status: 404 });
    }
    // Gentelella is built for the root of its host (`/js/...`, `/assets/...`): any other path is
    // looked up in its dist folder, the one site here that needs it.
    return file(`${MODULES_DIR}gentelella/dist${path}`);
  });
  return {
    origin: `http://127.0.0.1:${server.addr.port}`,
    missed,
    close: () => server.shutdown(),
  };
}
