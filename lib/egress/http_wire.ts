/** Just enough HTTP/1.1 wire handling for the egress proxy: read a head, rewrite it, pipe bytes. */
import { concatBytes } from "../bytes.ts";
import { EGRESS_MARKER_HEADER } from "./types.ts";

const CRLFCRLF = [13, 10, 13, 10];

export interface Head {
  /** Request or status line. */
  startLine: string;
  headers: [string, string][];
  /** Bytes that arrived after the head (start of a body or of a tunnelled stream). */
  rest: Uint8Array;
}

/**
 * Reads up to the blank line that ends a head, starting with bytes already read (`prefix`);
 * null when the peer closes first or the head is too big.
 */
export async function readHead(
  conn: Deno.Conn,
  maxBytes: number,
  prefix: Uint8Array = new Uint8Array(0),
): Promise<Head | null> {
  let buffer: Uint8Array = prefix;
  const chunk = new Uint8Array(16 * 1024);
  let searched = 0;
  while (true) {
    const end = indexOfBlankLine(buffer, searched);
    if (end >= 0) return parseHead(buffer.subarray(0, end), buffer.slice(end + 4));
    searched = Math.max(0, buffer.length - 3);
    // Heads past the limit are refused, so a peer cannot make us buffer without bound.
    if (buffer.length > maxBytes) return null;
    const n = await conn.read(chunk);
    if (n === null) return null;
    buffer = concatBytes([buffer, chunk.subarray(0, n)]);
  }
}

/** Serialises a head back to bytes. */
export function encodeHead(startLine: string, headers: [string, string][]): Uint8Array {
  const lines = [startLine, ...headers.map(([name, value]) => `${name}: ${value}`), "", ""];
  return new TextEncoder().encode(lines.join("\r\n"));
}

/** Drops hop-by-hop headers and asks for one exchange per connection. */
export function closeDelimited(headers: [string, string][]): [string, string][] {
  const hopByHop = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authorization"]);
  return [...headers.filter(([name]) => !hopByHop.has(name.toLowerCase())), [
    "Connection",
    "close",
  ]];
}

/** A short response the proxy itself sends, marked so the capturer can tell it from the target's. */
export function proxyResponse(
  status: number,
  reason: string,
  marker: string,
  extraHeaders: [string, string][] = [],
): Uint8Array {
  const body = new TextEncoder().encode(`Shotline egress proxy: ${marker}\n`);
  const head = encodeHead(`HTTP/1.1 ${status} ${reason}`, [
    ...extraHeaders,
    [EGRESS_MARKER_HEADER, marker],
    ["Content-Type", "text/plain"],
    ["Content-Length", String(body.length)],
    ["Connection", "close"],
  ]);
  return concatBytes([head, body]);
}

/** Writes every byte (Deno.Conn.write may write only part). */
export async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) offset += await conn.write(bytes.subarray(offset));
}

/**
 * Copies `from` to `to` until `from` ends, or until `admit` refuses a chunk (a spent byte
 * budget); errors end the copy quietly.
 */
export async function pump(
  from: Deno.Conn,
  to: Deno.Conn,
  admit: (bytes: number) => boolean = () => true,
): Promise<void> {
  const buffer = new Uint8Array(64 * 1024);
  try {
    while (true) {
      const n = await from.read(buffer);
      if (n === null || !admit(n)) return;
      await writeAll(to, buffer.subarray(0, n));
    }
  } catch {
    // A reset or a close from the other direction: the tunnel is over either way.
  }
}

/** The host and port of a CONNECT target (`host:port`, IPv6 in brackets); null if malformed. */
export function parseAuthority(
  target: string | undefined,
): { host: string; port: number; path: "" } | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:/\[\]@]+):(\d{1,5})$/.exec(target ?? "");
  if (!match) return null;
  const port = Number(match[2]);
  return port >= 1 && port <= 65535 ? { host: match[1].toLowerCase(), port, path: "" } : null;
}

/** Host, port and path of an absolute-form `http://` request target; null if unusable. */
export function parseAbsolute(target: string | undefined) {
  if (!target?.startsWith("http://")) return null;
  try {
    const url = new URL(target);
    if (url.username || url.password || !url.hostname) return null;
    return { host: url.hostname, port: Number(url.port || 80), path: url.pathname + url.search };
  } catch {
    return null;
  }
}

function parseHead(bytes: Uint8Array, rest: Uint8Array): Head {
  const [startLine, ...lines] = new TextDecoder().decode(bytes).split("\r\n");
  const headers: [string, string][] = [];
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
  }
  return { startLine, headers, rest };
}

function indexOfBlankLine(buffer: Uint8Array, from: number): number {
  outer: for (let i = from; i + 3 < buffer.length; i++) {
    for (let j = 0; j < 4; j++) if (buffer[i + j] !== CRLFCRLF[j]) continue outer;
    return i;
  }
  return -1;
}
