/**
 * A PDF's page count and the size of its first page, read from its bytes without a dependency.
 * Only what Chromium (Skia) writes is read: a classic cross-reference table and trailer, the page
 * tree as plain objects. A cross-reference stream (objects packed in compressed object streams),
 * an encrypted or incrementally updated file, or anything malformed is refused with a
 * PdfInfoError rather than guessed at.
 */

/** What a PDF says about its pages; sizes are in points (1/72 in). */
export interface PdfInfo {
  pages: number;
  /** The first page's MediaBox (its own or inherited); null when there are no pages. */
  firstPage: { width: number; height: number } | null;
}

/** The bytes are not a PDF this reader understands. */
export class PdfInfoError extends Error {
  constructor(message: string) {
    super(`pdf: ${message}`);
    this.name = "PdfInfoError";
  }
}

class PdfName {
  constructor(readonly value: string) {}
}
class PdfRef {
  constructor(readonly num: number, readonly gen: number) {}
}
class PdfString {
  constructor(readonly raw: string) {}
}
type PdfDict = Map<string, PdfValue>;
type PdfValue = number | boolean | null | PdfName | PdfRef | PdfString | PdfDict | PdfValue[];

// A page tree deeper than this is a loop or an attack, not a document.
const MAX_TREE_DEPTH = 64;
// startxref sits in the last bytes of the file (after it only the offset and %%EOF).
const TAIL_BYTES = 1_024;

/** The page count and first page size of a PDF; throws PdfInfoError on what it cannot read. */
export function readPdfInfo(bytes: Uint8Array): PdfInfo {
  if (latin1(bytes, 0, 5) !== "%PDF-") throw new PdfInfoError("no %PDF- header");
  const trailer = readTrailer(bytes);
  if (trailer.has("Encrypt")) throw new PdfInfoError("encrypted");
  if (trailer.has("Prev")) throw new PdfInfoError("incremental updates are not read");
  const objects = new ObjectTable(bytes, trailer.offsets);
  const catalog = objects.dict(trailer.get("Root"), "Catalog");
  const root = objects.dict(catalog.get("Pages"), "Pages");
  const pages = root.get("Count");
  if (!Number.isInteger(pages) || (pages as number) < 0) {
    throw new PdfInfoError("page tree without a valid /Count");
  }
  return { pages: pages as number, firstPage: pages === 0 ? null : firstPageSize(objects, root) };
}

/** Walks the first kids down to the first page; its MediaBox or the nearest ancestor's. */
function firstPageSize(objects: ObjectTable, root: PdfDict): { width: number; height: number } {
  let node = root;
  let mediaBox = root.get("MediaBox");
  for (let depth = 0; depth < MAX_TREE_DEPTH; depth++) {
    const kids = node.get("Kids");
    if (!Array.isArray(kids) || kids.length === 0) throw new PdfInfoError("pages without /Kids");
    node = objects.dict(kids[0]);
    mediaBox = node.get("MediaBox") ?? mediaBox;
    const type = node.get("Type");
    if (!(type instanceof PdfName)) throw new PdfInfoError("page tree node without /Type");
    if (type.value === "Pages") continue;
    if (type.value !== "Page") throw new PdfInfoError(`unexpected /Type /${type.value}`);
    if (
      !Array.isArray(mediaBox) || mediaBox.length !== 4 ||
      !mediaBox.every((v) => typeof v === "number")
    ) {
      throw new PdfInfoError("first page without a MediaBox");
    }
    const [x0, y0, x1, y1] = mediaBox as number[];
    return { width: Math.abs(x1 - x0), height: Math.abs(y1 - y0) };
  }
  throw new PdfInfoError("page tree too deep");
}

/** The trailer dictionary and the object offsets of the classic cross-reference table. */
function readTrailer(bytes: Uint8Array): PdfDict & { offsets: Map<number, number> } {
  const tailStart = Math.max(0, bytes.length - TAIL_BYTES);
  const tail = latin1(bytes, tailStart, bytes.length);
  const at = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail);
  if (!at) throw new PdfInfoError("no startxref at the end");
  const parser = new Parser(bytes, Number(at[1]));
  if (parser.word() !== "xref") {
    throw new PdfInfoError("no classic xref table (a cross-reference stream is not read)");
  }
  const offsets = new Map<number, number>();
  for (;;) {
    const word = parser.word();
    if (word === "trailer") break;
    const first = Number(word);
    const count = Number(parser.word());
    if (!Number.isInteger(first) || !Number.isInteger(count)) {
      throw new PdfInfoError("malformed xref table");
    }
    for (let i = 0; i < count; i++) {
      const offset = Number(parser.word());
      parser.word(); // generation
      const use = parser.word();
      if (use === "n") offsets.set(first + i, offset);
      else if (use !== "f") throw new PdfInfoError("malformed xref entry");
    }
  }
  const trailer = parser.value();
  if (!(trailer instanceof Map)) throw new PdfInfoError("trailer is not a dictionary");
  return Object.assign(trailer, { offsets });
}

/** Indirect objects read on demand at their xref offsets. */
class ObjectTable {
  constructor(private bytes: Uint8Array, private offsets: Map<number, number>) {}

  /** The dictionary `value` is or refers to, checked to be of `type` when given. */
  dict(value: PdfValue | undefined, type?: string): PdfDict {
    const resolved = value instanceof PdfRef ? this.object(value) : value;
    if (!(resolved instanceof Map)) throw new PdfInfoError(`expected a dictionary for ${type}`);
    const found = resolved.get("Type");
    if (type && !(found instanceof PdfName && found.value === type)) {
      throw new PdfInfoError(`expected /Type /${type}`);
    }
    return resolved;
  }

  private object(ref: PdfRef): PdfValue {
    const offset = this.offsets.get(ref.num);
    if (offset === undefined) throw new PdfInfoError(`object ${ref.num} not in the xref table`);
    const parser = new Parser(this.bytes, offset);
    if (Number(parser.word()) !== ref.num || Number(parser.word()) !== ref.gen) {
      throw new PdfInfoError(`object ${ref.num} is not at its xref offset`);
    }
    if (parser.word() !== "obj") throw new PdfInfoError(`object ${ref.num} has no obj keyword`);
    return parser.value();
  }
}

const WHITESPACE = new Set([0, 9, 10, 12, 13, 32]);
const DELIMITERS = new Set([..."()<>[]{}/%"].map((c) => c.charCodeAt(0)));

/** A tokenizer and parser of PDF values from a byte offset. */
class Parser {
  constructor(private bytes: Uint8Array, private at: number) {
    if (at < 0 || at >= bytes.length) throw new PdfInfoError(`offset ${at} outside the file`);
  }

  /** The next run of regular characters (a keyword or a number). */
  word(): string {
    this.skipSpace();
    const start = this.at;
    while (this.at < this.bytes.length && this.regular(this.bytes[this.at])) this.at++;
    if (start === this.at) throw new PdfInfoError(`expected a word at ${start}`);
    return latin1(this.bytes, start, this.at);
  }

  value(): PdfValue {
    this.skipSpace();
    const c = this.char();
    if (c === "/") return new PdfName(this.name());
    if (c === "[") {
      this.at++;
      const items: PdfValue[] = [];
      while (this.peek() !== "]") items.push(this.value());
      this.at++;
      return items;
    }
    if (c === "<" && this.char(1) === "<") {
      this.at += 2;
      const dict: PdfDict = new Map();
      while (this.peek() !== ">") {
        if (this.char() !== "/") throw new PdfInfoError(`dictionary key expected at ${this.at}`);
        dict.set(this.name(), this.value());
      }
      if (this.char(1) !== ">") throw new PdfInfoError(`unterminated dictionary at ${this.at}`);
      this.at += 2;
      return dict;
    }
    if (c === "<") return this.delimited("<", ">");
    if (c === "(") return this.delimited("(", ")");
    const word = this.word();
    if (word === "true" || word === "false") return word === "true";
    if (word === "null") return null;
    const number = Number(word);
    if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word)) throw new PdfInfoError(`unexpected "${word}"`);
    // An integer followed by another and R is a reference.
    if (/^\d+$/.test(word)) {
      const back = this.at;
      this.skipSpace();
      const gen = this.at < this.bytes.length && this.regular(this.bytes[this.at]) && this.word();
      if (gen && /^\d+$/.test(gen) && this.peek() === "R") {
        this.at++;
        return new PdfRef(number, Number(gen));
      }
      this.at = back;
    }
    return number;
  }

  private name(): string {
    this.at++; // the slash
    const start = this.at;
    while (this.at < this.bytes.length && this.regular(this.bytes[this.at])) this.at++;
    return latin1(this.bytes, start, this.at);
  }

  /** A literal (nesting parentheses, backslash escapes) or hex string, kept raw. */
  private delimited(open: string, close: string): PdfString {
    const start = this.at;
    let depth = 0;
    for (; this.at < this.bytes.length; this.at++) {
      const c = this.char();
      if (c === "\\" && open === "(") this.at++;
      else if (c === open) depth++;
      else if (c === close && --depth === 0) {
        this.at++;
        return new PdfString(latin1(this.bytes, start + 1, this.at - 1));
      }
    }
    throw new PdfInfoError(`unterminated string at ${start}`);
  }

  private peek(): string {
    this.skipSpace();
    if (this.at >= this.bytes.length) throw new PdfInfoError("unexpected end of file");
    return this.char();
  }

  private char(ahead = 0): string {
    return String.fromCharCode(this.bytes[this.at + ahead] ?? 0);
  }

  private regular(byte: number): boolean {
    return !WHITESPACE.has(byte) && !DELIMITERS.has(byte);
  }

  private skipSpace(): void {
    while (this.at < this.bytes.length) {
      const byte = this.bytes[this.at];
      if (WHITESPACE.has(byte)) this.at++;
      else if (byte === 0x25) { // % starts a comment up to the end of the line
        while (
          this.at < this.bytes.length && this.bytes[this.at] !== 10 && this.bytes[this.at] !== 13
        ) {
          this.at++;
        }
      } else return;
    }
  }
}

function latin1(bytes: Uint8Array, start: number, end: number): string {
  return new TextDecoder("latin1").decode(bytes.subarray(start, end));
}
