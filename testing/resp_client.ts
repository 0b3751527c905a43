/**
 * Test fixture: a minimal RESP2 client over TCP, used by the Upstash gateway fixture. Each
 * exchange borrows a connection exclusively, so a MULTI ... EXEC block cannot interleave with
 * another request's commands.
 */
import { concatBytes } from "../lib/bytes.ts";

/** An error reply (`-ERR ...`) from Redis. */
export class RespError {
  constructor(readonly message: string) {}
}

/** Simple strings are `string`, bulk strings `Uint8Array`, integers `number`, nil `null`. */
export type RespReply = string | number | Uint8Array | null | RespError | RespReply[];

/** The connection ended before any byte of a reply arrived (e.g. Redis was restarted). */
class NoReplyError extends Error {}

const CRLF = new Uint8Array([13, 10]);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

class RespConnection {
  #buffer = new Uint8Array(0);
  #offset = 0;

  private constructor(private readonly conn: Deno.TcpConn) {}

  static async open(port: number): Promise<RespConnection> {
    return new RespConnection(await Deno.connect({ hostname: "127.0.0.1", port }));
  }

  /** Writes every command at once, then reads one reply per command, in order. */
  async exchange(commands: readonly string[][]): Promise<RespReply[]> {
    await this.#writeAll(encodeCommands(commands));
    const replies: RespReply[] = [];
    for (let i = 0; i < commands.length; i++) replies.push(await this.#readReply(i === 0));
    return replies;
  }

  close() {
    try {
      this.conn.close();
    } catch {
      // Already closed.
    }
  }

  async #writeAll(bytes: Uint8Array) {
    for (let written = 0; written < bytes.length;) {
      written += await this.conn.write(bytes.subarray(written));
    }
  }

  async #fill(first: boolean) {
    const chunk = new Uint8Array(64 * 1024);
    const read = await this.conn.read(chunk).catch((error) => {
      if (first) throw new NoReplyError(String(error));
      throw error;
    });
    if (read === null) {
      if (first) throw new NoReplyError("connection closed");
      throw new Error("redis closed the connection mid-reply");
    }
    const rest = this.#buffer.subarray(this.#offset);
    this.#buffer = concatBytes([rest, chunk.subarray(0, read)]);
    this.#offset = 0;
  }

  async #readLine(first = false): Promise<string> {
    for (;;) {
      const end = this.#buffer.indexOf(13, this.#offset);
      if (end >= 0 && end + 1 < this.#buffer.length) {
        const line = decoder.decode(this.#buffer.subarray(this.#offset, end));
        this.#offset = end + 2;
        return line;
      }
      await this.#fill(first && this.#offset === this.#buffer.length);
    }
  }

  async #readBytes(length: number): Promise<Uint8Array> {
    const out = new Uint8Array(length);
    const buffered = Math.min(length, this.#buffer.length - this.#offset);
    out.set(this.#buffer.subarray(this.#offset, this.#offset + buffered));
    this.#offset += buffered;
    for (let got = buffered; got < length;) {
      const read = await this.conn.read(out.subarray(got));
      if (read === null) throw new Error("redis closed the connection mid-reply");
      got += read;
    }
    await this.#readLine(); // the CRLF after the payload
    return out;
  }

  async #readReply(first = false): Promise<RespReply> {
    const line = await this.#readLine(first);
    const body = line.slice(1);
    switch (line[0]) {
      case "+":
        return body;
      case "-":
        return new RespError(body);
      case ":":
        return Number(body);
      case "$":
        return body === "-1" ? null : await this.#readBytes(Number(body));
      case "*": {
        if (body === "-1") return null;
        const items: RespReply[] = [];
        for (let i = 0; i < Number(body); i++) items.push(await this.#readReply());
        return items;
      }
      default:
        throw new Error(`unexpected RESP line ${JSON.stringify(line.slice(0, 40))}`);
    }
  }
}

function encodeCommands(commands: readonly string[][]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const args of commands) {
    parts.push(encoder.encode(`*${args.length}\r\n`));
    for (const arg of args) {
      const bytes = encoder.encode(arg);
      parts.push(encoder.encode(`$${bytes.length}\r\n`), bytes, CRLF);
    }
  }
  return concatBytes(parts);
}

/** A pool of RESP connections to one loopback Redis; `close()` ends all of them. */
export class RespPool {
  #idle: RespConnection[] = [];
  #busy = new Set<RespConnection>();
  #closed = false;

  constructor(readonly port: number) {}

  /** Sends the commands on one connection and returns their replies in order. */
  async run(commands: readonly string[][]): Promise<RespReply[]> {
    if (this.#closed) throw new Error("pool closed");
    const reused = this.#idle.pop();
    try {
      return await this.#runOn(reused ?? await RespConnection.open(this.port), commands);
    } catch (error) {
      // A pooled socket to a Redis that was restarted dies without a reply: retry on a new one.
      if (!reused || !(error instanceof NoReplyError)) throw error;
      return await this.#runOn(await RespConnection.open(this.port), commands);
    }
  }

  close() {
    this.#closed = true;
    for (const conn of [...this.#idle, ...this.#busy]) conn.close();
    this.#idle = [];
  }

  async #runOn(conn: RespConnection, commands: readonly string[][]): Promise<RespReply[]> {
    this.#busy.add(conn);
    let healthy = false;
    try {
      const replies = await conn.exchange(commands);
      healthy = true;
      return replies;
    } catch (error) {
      // One dead socket means Redis went away: drop the other idle ones too.
      for (const idle of this.#idle) idle.close();
      this.#idle = [];
      throw error;
    } finally {
      this.#busy.delete(conn);
      if (healthy && !this.#closed) this.#idle.push(conn);
      else conn.close();
    }
  }
}
