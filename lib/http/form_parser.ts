/**
 * A multipart/form-data body read into a FormData in time linear in its bytes: every delimiter is
 * found by a Horspool search, which moves up to a delimiter's length per step (node:buffer's
 * indexOf, in script on this runtime, took over a second across 25 MiB of carriage returns on a
 * loaded machine), a slice of the body per turn of the event loop (lib/http/turns.ts). The
 * runtime's own form parser held the event loop 0.9 to 1.5 s for one 25 MiB image part. Only what
 * a form of this API needs: named parts, a file when the part has a filename.
 */
import { nextTurn, SLICE_BYTES } from "./turns.ts";

/** Why a body is not a form of this API (the message goes to the client as is). */
export class MalformedForm extends Error {
  constructor(message: string, readonly tooManyParts = false) {
    super(message);
  }
}

// A part's headers are a few short lines; more is not a form of this API.
const MAX_HEADER_BYTES = 8 * 1024;
const ENCODER = new TextEncoder();
const CRLF = ENCODER.encode("\r\n");
const HEADERS_END = ENCODER.encode("\r\n\r\n");
const DASH = 0x2d;
const TEXT = new TextDecoder();

/** The parts of `body` split on `boundary`, at most `maxParts` of them (more: MalformedForm). */
export async function parseForm(
  body: Uint8Array<ArrayBuffer>,
  boundary: string,
  maxParts: number,
): Promise<FormData> {
  const bytes = body;
  const delimiter = ENCODER.encode(`--${boundary}`);
  const between = ENCODER.encode(`\r\n--${boundary}`);
  const find = (needle: Uint8Array, from: number) => findInSlices(bytes, needle, from);
  const form = new FormData();
  // The preamble before the first delimiter is ignored, as RFC 2046 says.
  let at = await find(delimiter, 0);
  if (at < 0) throw new MalformedForm("No multipart boundary in the body.");
  at += delimiter.length;
  for (let parts = 0;; parts++) {
    if (bytes[at] === DASH && bytes[at + 1] === DASH) return form; // the closing delimiter
    if (parts === maxParts) throw new MalformedForm(`More than ${maxParts} parts.`, true);
    // Transport padding (spaces, tabs) may follow a delimiter before its line break.
    const lineEnd = await find(CRLF, at);
    if (lineEnd < 0 || bytes.subarray(at, lineEnd).some((b) => b !== 0x20 && b !== 0x09)) {
      throw new MalformedForm("A multipart delimiter is not followed by a line break.");
    }
    const headersStart = lineEnd + 2;
    const headersEnd = await find(HEADERS_END, headersStart - 2);
    if (headersEnd < 0 || headersEnd - headersStart > MAX_HEADER_BYTES) {
      throw new MalformedForm("A part's headers do not end.");
    }
    const next = await find(between, headersEnd + 4);
    if (next < 0) throw new MalformedForm("A part does not end with a boundary.");
    const content = body.subarray(headersEnd + 4, Math.max(headersEnd + 4, next));
    addPart(form, TEXT.decode(bytes.subarray(headersStart, headersEnd)), content);
    at = next + between.length;
  }
}

/** indexOfBytes over `haystack` a slice per turn of the event loop. */
async function findInSlices(haystack: Uint8Array, needle: Uint8Array, from: number) {
  for (let start = from; start < haystack.length; start += SLICE_BYTES) {
    if (start > from) await nextTurn();
    // Each window reaches a needle's length past its slice: a match across the cut is found.
    const end = Math.min(haystack.length, start + SLICE_BYTES + needle.length - 1);
    const found = indexOfBytes(haystack, needle, start, end);
    if (found >= 0) return found;
  }
  return -1;
}

/**
 * Where `needle` first occurs in `haystack` at or after `from` and ending by `end` (Horspool),
 * or -1.
 */
export function indexOfBytes(
  haystack: Uint8Array,
  needle: Uint8Array,
  from = 0,
  end = haystack.length,
): number {
  const m = needle.length;
  if (m === 0) return from;
  // How far the window may move when its last byte is b: from b's last place in the needle
  // (its final byte left out) to the needle's end; m for a byte the needle lacks.
  const shift = new Uint32Array(256).fill(m);
  for (let i = 0; i < m - 1; i++) shift[needle[i]] = m - 1 - i;
  const last = needle[m - 1];
  for (let at = from; at + m <= end; at += shift[haystack[at + m - 1]]) {
    if (haystack[at + m - 1] !== last) continue;
    let i = 0;
    while (i < m - 1 && haystack[at + i] === needle[i]) i++;
    if (i === m - 1) return at;
  }
  return -1;
}

/** Adds one part to `form` from its header block and content. */
function addPart(form: FormData, headers: string, content: Uint8Array<ArrayBuffer>) {
  let disposition = "";
  let type = "";
  for (const line of headers.split("\r\n")) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).trim().toLowerCase();
    if (name === "content-disposition") disposition = line.slice(colon + 1);
    if (name === "content-type") type = line.slice(colon + 1).trim();
  }
  if (!/^\s*form-data\s*(;|$)/i.test(disposition)) {
    throw new MalformedForm("A part is not form-data.");
  }
  const name = parameter(disposition, "name");
  if (name === undefined) throw new MalformedForm("A part has no name.");
  const filename = parameter(disposition, "filename");
  if (filename === undefined) form.append(name, TEXT.decode(content));
  // Appended without a file name argument, so FormData keeps this very object (it would copy).
  else form.append(name, new PartFile(content, filename, type));
}

/**
 * A file part whose bytes stay where the parser found them. The runtime's File copies its parts
 * twice when made and again when read (0.1 s and 0.3 to 0.4 s for 25 MiB on two loaded cores,
 * each in one piece); this one hands out a view of the body instead.
 */
export class PartFile extends File {
  readonly #bytes: Uint8Array<ArrayBuffer>;

  constructor(bytes: Uint8Array<ArrayBuffer>, name: string, type: string) {
    super([], name, { type });
    this.#bytes = bytes;
  }

  override get size(): number {
    return this.#bytes.length;
  }

  /** The part's bytes themselves (not a copy): a view into the request body. */
  override bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return Promise.resolve(this.#bytes);
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    return Promise.resolve(this.#bytes.slice().buffer);
  }

  override text(): Promise<string> {
    return Promise.resolve(TEXT.decode(this.#bytes));
  }

  override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
    return new Blob([this.#bytes]).stream();
  }

  override slice(start?: number, end?: number, contentType?: string): Blob {
    return new Blob([this.#bytes]).slice(start, end, contentType);
  }
}

/** A parameter of a Content-Disposition value, quoted or not (browsers escape `"` as %22). */
function parameter(disposition: string, key: string): string | undefined {
  const match = new RegExp(`;\\s*${key}=(?:"([^"]*)"|([^;\\s]*))`, "i").exec(disposition);
  if (!match) return undefined;
  const raw = match[1] ?? match[2];
  return raw.replace(/%22/g, '"').replace(/%0D/gi, "\r").replace(/%0A/gi, "\n");
}
