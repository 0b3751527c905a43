/**
 * The loopback world `deno task load` drives the real main.ts against, in its own process so
 * its CPU is not the load generator's:
 * - the upstream hosts main.ts really calls (cdn.syndication.twimg.com, pbs/abs/ton/video
 *   .twimg.com) served over TLS by one local server with a throwaway CA, reached through a
 *   CONNECT proxy that tunnels only those names to it. main.ts runs unchanged with
 *   HTTPS_PROXY=<that proxy> and DENO_CERT=<that CA>: Deno's own fetch goes through the proxy,
 *   exactly as docs/configuration.md says operators may set it, and no packet leaves the machine;
 * - plain-HTTP pages for Chromium to capture (`/page?n=<anything>`: distinct URLs, one page);
 * - the same 1 MB media body over plain HTTP, as a ceiling reference for the load generator
 *   (`/media/<name>.jpg`, or `.mp4`; `?mb=N` streams N MiB instead; `/media/reset.mp4` breaks
 *   off after 2 of its 8 MiB).
 *
 *   deno run -A testing/tls_media_hosts.ts     prints one JSON line (ports, CA path), exits on SIGTERM
 */
import { BENCH_POST, streamedResponse } from "./upstream_bodies.ts";
export const TLS_HOSTS = [
  "cdn.syndication.twimg.com",
  "pbs.twimg.com",
  "abs.twimg.com",
  "ton.twimg.com",
  "video.twimg.com",
];
export const MEDIA_KB = 1024;

export interface UpstreamInfo {
  /** HTTPS_PROXY for the service. */
  proxyPort: number;
  /** DENO_CERT for the service. */
  caPath: string;
  /** Plain-HTTP pages to capture, and `/media` without TLS or proxy. */
  pagesPort: number;
}

// A JPEG-looking body (SOI marker, then filler): the proxy checks the content type, not pixels.
const MEDIA = new Uint8Array(MEDIA_KB * 1024).fill(0x5a);
MEDIA.set([0xff, 0xd8, 0xff, 0xe0]);

const PARAGRAPH = "Shotline captures pages for a screenshot editor. ".repeat(12);
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Load page</title>
<style>body{font:18px/1.5 sans-serif;margin:40px auto;max-width:900px;color:#222}
header{background:linear-gradient(90deg,#0b6,#07c);color:#fff;padding:24px;border-radius:12px}
.card{border:1px solid #ccc;border-radius:8px;padding:16px;margin:16px 0}</style></head><body>
<header><h1>Loopback page</h1><p>Served to Chromium by testing/tls_media_hosts.ts</p></header>
${
  Array.from({ length: 8 }, (_, i) =>
    `<div class="card"><h2>Section ${i + 1}</h2><p>${PARAGRAPH}</p></div>`).join("\n")
}
</body></html>`;

/**
 * 8 MiB announced, 2 MiB sent, then the body ends: the connection closes short of its length,
 * as when a media host fails mid-body (ended, not errored, so this fixture prints nothing).
 */
function resetMidBody(): Response {
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= 2 * MEDIA.byteLength) return controller.close();
      sent += MEDIA.byteLength;
      controller.enqueue(MEDIA);
    },
  });
  return new Response(body, {
    headers: { "content-type": "video/mp4", "content-length": String(8 * MEDIA.byteLength) },
  });
}

function upstream(req: Request): Response {
  const url = new URL(req.url);
  if (url.pathname === "/tweet-result") return Response.json(BENCH_POST);
  if (url.pathname === "/media/reset.mp4") return resetMidBody();
  if (url.pathname.startsWith("/media/")) {
    const contentType = url.pathname.endsWith(".mp4") ? "video/mp4" : "image/jpeg";
    const megabytes = url.searchParams.get("mb");
    if (megabytes) return streamedResponse(MEDIA, Number(megabytes) * 1024 * 1024, contentType);
    return new Response(MEDIA, {
      headers: { "content-type": contentType, "content-length": String(MEDIA.byteLength) },
    });
  }
  return new Response("not found", { status: 404 });
}

function pages(req: Request): Response {
  const url = new URL(req.url);
  if (url.pathname === "/page") {
    return new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } });
  }
  return upstream(req);
}

async function openssl(dir: string, ...args: string[]) {
  const out = await new Deno.Command("openssl", { args, cwd: dir, stdout: "null", stderr: "piped" })
    .output();
  if (!out.success) throw new Error(`openssl ${args[0]}: ${new TextDecoder().decode(out.stderr)}`);
}

/** A throwaway CA and a leaf certificate for TLS_HOSTS, valid one day. */
async function makeCertificates(dir: string) {
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  await openssl(
    dir,
    "req",
    "-x509",
    ...ec,
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "1",
    "-subj",
    "/CN=Shotline load CA",
  );
  await Deno.writeTextFile(
    `${dir}/leaf.cnf`,
    `subjectAltName=${TLS_HOSTS.map((h) => `DNS:${h}`).join(",")}\nbasicConstraints=CA:FALSE\n` +
      "keyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n",
  );
  await openssl(
    dir,
    "req",
    ...ec,
    "-keyout",
    "leaf.key",
    "-out",
    "leaf.csr",
    "-subj",
    `/CN=${TLS_HOSTS[1]}`,
  );
  await openssl(
    dir,
    "x509",
    "-req",
    "-in",
    "leaf.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "leaf.pem",
    "-days",
    "1",
    "-extfile",
    "leaf.cnf",
  );
  return {
    caPath: `${dir}/ca.pem`,
    cert: await Deno.readTextFile(`${dir}/leaf.pem`),
    key: await Deno.readTextFile(`${dir}/leaf.key`),
  };
}

const HEAD_END = new TextEncoder().encode("\r\n\r\n");

function indexOfHeadEnd(bytes: Uint8Array): number {
  outer: for (let i = 0; i + HEAD_END.length <= bytes.length; i++) {
    for (let j = 0; j < HEAD_END.length; j++) if (bytes[i + j] !== HEAD_END[j]) continue outer;
    return i;
  }
  return -1;
}

/** One CONNECT tunnel: only `<TLS_HOSTS>:443` is tunnelled (to the local TLS server). */
async function tunnel(conn: Deno.Conn, tlsPort: number) {
  const encoder = new TextEncoder();
  let head = new Uint8Array(0);
  const buffer = new Uint8Array(8192);
  let end = -1;
  // Why: a request head over 8 KB is not a CONNECT we sent; drop it rather than buffer more.
  while ((end = indexOfHeadEnd(head)) === -1 && head.length < 8192) {
    const n = await conn.read(buffer);
    if (n === null) return conn.close();
    head = new Uint8Array([...head, ...buffer.subarray(0, n)]);
  }
  const line = new TextDecoder().decode(head.subarray(0, Math.max(end, 0))).split("\r\n")[0];
  const match = /^CONNECT ([^\s:]+):443 HTTP\/1\.[01]$/.exec(line);
  if (end === -1 || !match || !TLS_HOSTS.includes(match[1].toLowerCase())) {
    await conn.write(encoder.encode("HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n"));
    return conn.close();
  }
  const upstreamConn = await Deno.connect({ hostname: "127.0.0.1", port: tlsPort });
  await conn.write(encoder.encode("HTTP/1.1 200 Connection Established\r\n\r\n"));
  const rest = head.subarray(end + HEAD_END.length);
  if (rest.length) await upstreamConn.write(rest);
  await Promise.allSettled([
    conn.readable.pipeTo(upstreamConn.writable),
    upstreamConn.readable.pipeTo(conn.writable),
  ]);
}

async function main() {
  const dir = await Deno.makeTempDir({ prefix: "shotline-load-ca-" });
  const { caPath, cert, key } = await makeCertificates(dir);
  const quiet = () => {};
  const tls = Deno.serve(
    {
      port: 0,
      hostname: "127.0.0.1",
      cert,
      key,
      onListen: quiet,
      onError: () => new Response(null, { status: 500 }),
    },
    upstream,
  );
  const plain = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: quiet }, pages);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  (async () => {
    for await (const conn of listener) {
      tunnel(conn, tls.addr.port).catch(() => {
        try {
          conn.close();
        } catch {
          // already closed
        }
      });
    }
  })().catch(() => {});
  const info: UpstreamInfo = { proxyPort: listener.addr.port, caPath, pagesPort: plain.addr.port };
  await Deno.stdout.write(new TextEncoder().encode(JSON.stringify(info) + "\n"));
  Deno.addSignalListener("SIGTERM", async () => {
    listener.close();
    await Promise.allSettled([tls.shutdown(), plain.shutdown()]);
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    Deno.exit(0);
  });
}

if (import.meta.main) await main();
