/**
 * Reading an HTTP/1.1 response body off a connection by its framing (chunked, Content-Length, or
 * up to the close), never holding more than a cap: the service's own GETs through the egress
 * proxy read answers from hosts a page named, which may send without end.
 */
import { concatBytes, readCapped } from "../bytes.ts";
import type { Head } from "./http_wire.ts";

// A chunk-size line or a trailer line is a few bytes; longer is not HTTP.
const MAX_LINE_BYTES = 8 * 1024;

/** The value of the first header named `name` (any case), or undefined. */
export function headerOf(headers: [string, string][], name: string): string | undefined {
  const wanted = name.toLowerCase();
  return headers.find(([key]) => key.toLowerCase() === wanted)?.[1];
}

/**
 * The body that follows `head` on `conn` (its first bytes are `head.rest`), decoded from gzip or
 * deflate when the server sent it so; null as soon as it passes `maxBytes` (encoded or decoded).
 * Throws on a framing it cannot read.
 */
export async function readBody(
  conn: Deno.Conn,
  head: Head,
  maxBytes: number,
): Promise<Uint8Array | null> {
  const reader = new ConnReader(conn, head.rest);
  const transfer = headerOf(head.headers, "transfer-encoding");
  const length = headerOf(head.headers, "content-length");
  let body: Uint8Array | null;
  if (transfer !== undefined) {
    if (!/(^|,)\s*chunked\s*$/i.test(transfer)) throw new Error(`transfer-encoding ${transfer}`);
    body = await readChunked(reader, maxBytes);
  } else if (length !== undefined) {
    if (!/^\d{1,15}$/.test(length.trim())) throw new Error("malformed content-length");
    const size = Number(length);
    // Refused before a byte of it is read.
    body = size > maxBytes ? null : await reader.exactly(size);
  } else body = await reader.toEnd(maxBytes);
  if (!body) return null;
  return await decoded(body, headerOf(head.headers, "content-encoding"), maxBytes);
}

/**
 * At most the first `maxBytes` of the body that follows `head`, and whether more followed: for
 * answers whose first bytes are worth keeping however long they run (a webhook receiver's error).
 * An encoded body is decoded only when it arrived whole (a cut gzip stream decodes to nothing
 * useful). Throws on a framing it cannot read.
 */
export async function readBodyPrefix(
  conn: Deno.Conn,
  head: Head,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; cut: boolean }> {
  const reader = new ConnReader(conn, head.rest);
  const transfer = headerOf(head.headers, "transfer-encoding");
  const length = headerOf(head.headers, "content-length");
  let kept: { bytes: Uint8Array; cut: boolean };
  if (transfer !== undefined) {
    if (!/(^|,)\s*chunked\s*$/i.test(transfer)) throw new Error(`transfer-encoding ${transfer}`);
    kept = await readChunkedPrefix(reader, maxBytes);
  } else if (length !== undefined) {
    if (!/^\d{1,15}$/.test(length.trim())) throw new Error("malformed content-length");
    const size = Number(length);
    kept = { bytes: await reader.exactly(Math.min(size, maxBytes)), cut: size > maxBytes };
  } else kept = await reader.upTo(maxBytes);
  const encoding = headerOf(head.headers, "content-encoding");
  if (kept.cut || !encoding || /^\s*identity\s*$/i.test(encoding)) return kept;
  const whole = await decoded(kept.bytes, encoding, maxBytes);
  return whole ? { bytes: whole, cut: false } : { bytes: new Uint8Array(0), cut: true };
}

/** Bytes of a connection with a few read ahead; every method throws when the peer ends early. */
class ConnReader {
  #buffer: Uint8Array;
  #chunk = new Uint8Array(16 * 1024);
  constructor(private conn: Deno.Conn, first: Uint8Array) {
    this.#buffer = first;
  }

  /** More bytes appended to the buffer; false at the end of the stream. */
  async #fill(): Promise<boolean> {
    const n = await this.conn.read(this.#chunk);
    if (n === null) return false;
    this.#buffer = concatBytes([this.#buffer, this.#chunk.subarray(0, n)]);
    return true;
  }

  async exactly(size: number): Promise<Uint8Array> {
    while (this.#buffer.length < size) {
      if (!await this.#fill()) throw new Error("body cut short");
    }
    const out = this.#buffer.slice(0, size);
    this.#buffer = this.#buffer.subarray(size);
    return out;
  }

  /** One line without its CRLF. */
  async line(): Promise<string> {
    while (true) {
      const end = this.#buffer.indexOf(10);
      if (end >= 0) {
        const text = new TextDecoder().decode(this.#buffer.subarray(0, end));
        this.#buffer = this.#buffer.subarray(end + 1);
        return text.replace(/\r$/, "");
      }
      if (this.#buffer.length > MAX_LINE_BYTES) throw new Error("line too long");
      if (!await this.#fill()) throw new Error("body cut short");
    }
  }

  /** Up to `maxBytes` of what comes before the close, and whether more came. */
  async upTo(maxBytes: number): Promise<{ bytes: Uint8Array; cut: boolean }> {
    while (this.#buffer.length <= maxBytes) {
      if (!await this.#fill()) return { bytes: this.#buffer.slice(), cut: false };
    }
    return { bytes: this.#buffer.slice(0, maxBytes), cut: true };
  }

  /** Everything up to the close; null past `maxBytes`. */
  async toEnd(maxBytes: number): Promise<Uint8Array | null> {
    while (this.#buffer.length <= maxBytes) {
      if (!await this.#fill()) return this.#buffer.slice();
    }
    return null;
  }
}

async function readChunked(reader: ConnReader, maxBytes: number): Promise<Uint8Array | null> {
  const parts: Uint8Array[] = [];
  let total = 0;
  while (true) {
    const sizeText = (await reader.line()).split(";")[0].trim();
    if (!/^[0-9a-fA-F]{1,12}$/.test(sizeText)) throw new Error("malformed chunk size");
    const size = parseInt(sizeText, 16);
    if (size === 0) break;
    total += size;
    if (total > maxBytes) return null;
    parts.push(await reader.exactly(size));
    if (await reader.line() !== "") throw new Error("malformed chunk end");
  }
  // Trailers, up to the blank line.
  while (await reader.line() !== "");
  return concatBytes(parts);
}

async function readChunkedPrefix(
  reader: ConnReader,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; cut: boolean }> {
  const parts: Uint8Array[] = [];
  let total = 0;
  while (true) {
    const sizeText = (await reader.line()).split(";")[0].trim();
    if (!/^[0-9a-fA-F]{1,12}$/.test(sizeText)) throw new Error("malformed chunk size");
    const size = parseInt(sizeText, 16);
    if (size === 0) return { bytes: concatBytes(parts), cut: false };
    // The rest of the stream is not read: the connection is closed after this.
    if (total + size > maxBytes) {
      parts.push(await reader.exactly(maxBytes - total));
      return { bytes: concatBytes(parts), cut: true };
    }
    total += size;
    parts.push(await reader.exactly(size));
    if (await reader.line() !== "") throw new Error("malformed chunk end");
  }
}

async function decoded(
  body: Uint8Array,
  encoding: string | undefined,
  maxBytes: number,
): Promise<Uint8Array | null> {
  const name = (encoding ?? "identity").trim().toLowerCase();
  if (name === "identity" || name === "") return body;
  if (name !== "gzip" && name !== "deflate") throw new Error(`content-encoding ${name}`);
  const stream = new Blob([body.slice()]).stream().pipeThrough(new DecompressionStream(name));
  // Decoded size is capped too: a small gzip can stand for gigabytes.
  return await readCapped(stream, maxBytes);
}
