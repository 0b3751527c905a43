/**
 * TEST FIXTURE: an upstream that misbehaves on purpose, written on a raw `Deno.listen` TCP
 * listener (Deno.serve would always answer properly). After reading a request it can:
 *
 * - `none`: answer properly (200, the configured body, `Connection: close`);
 * - `hang`: say nothing, holding the connection until the client gives up;
 * - `reset`: close the connection before any byte of the answer;
 * - `reset_mid_body`: send the headers (with the full Content-Length) and half the body, close;
 * - `dribble`: send the headers, then the body one byte every `dribbleIntervalMs` (1 s default).
 *
 * One request per connection. The fixture counts the connections still open (neither side has
 * closed them yet), so tests can prove that the service let go of every upstream socket.
 */
import { concatBytes } from "../lib/bytes.ts";

export type Fault = "none" | "hang" | "reset" | "reset_mid_body" | "dribble";

export interface FaultyUpstreamOptions {
  /** Content-Type of the answer. */
  contentType: string;
  /** The body of a proper answer (and what the faults cut short). */
  body: Uint8Array;
  fault?: Fault;
  dribbleIntervalMs?: number;
}

export interface FaultyUpstream {
  readonly origin: string;
  /** Behaviour for the next requests; may be changed between requests. */
  fault: Fault;
  dribbleIntervalMs: number;
  /** Requests read so far. */
  readonly requests: number;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Connections open right now. */
  readonly open: number;
  /** Resolves once no connection is open; rejects after `timeoutMs`. */
  allClosed(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

// A GET request head is well under this; more means something else is talking to us.
const MAX_HEAD_BYTES = 64 * 1024;
const encoder = new TextEncoder();

/** Starts the upstream on 127.0.0.1, port 0. */
export function startFaultyUpstream(options: FaultyUpstreamOptions): FaultyUpstream {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  const tasks = new Set<Promise<void>>();
  const stopping = new AbortController();
  let idleWaiters: (() => void)[] = [];
  let requests = 0;
  let connections = 0;

  const release = (conn: Deno.Conn) => {
    try {
      conn.close();
    } catch {
      // Already closed.
    }
    open.delete(conn);
    if (open.size === 0) {
      for (const resolve of idleWaiters) resolve();
      idleWaiters = [];
    }
  };

  async function serve(conn: Deno.Conn): Promise<void> {
    const head = await readHead(conn);
    if (head === null) return;
    requests++;
    // Reads after the head only watch for the client going away (EOF or error).
    const peerGone = drain(conn);
    try {
      await answer(conn, peerGone);
    } finally {
      release(conn);
      await peerGone;
    }
  }

  async function answer(conn: Deno.Conn, peerGone: Promise<void>): Promise<void> {
    const { body, contentType } = upstream;
    const headers = (length: number) =>
      encoder.encode(
        "HTTP/1.1 200 OK\r\n" +
          `Content-Type: ${contentType}\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n`,
      );
    switch (upstream.fault) {
      case "none":
        await writeAll(conn, concatBytes([headers(body.length), body]));
        return;
      case "hang":
        await Promise.race([peerGone, aborted(stopping.signal)]);
        return;
      case "reset":
        return;
      case "reset_mid_body":
        await writeAll(
          conn,
          concatBytes([headers(body.length), body.subarray(0, body.length >> 1)]),
        );
        return;
      case "dribble": {
        if (!await writeAll(conn, headers(body.length))) return;
        // Stops the pauses (and their timers) as soon as the client leaves or the fixture closes.
        const left = new AbortController();
        void peerGone.then(() => left.abort());
        const stop = AbortSignal.any([left.signal, stopping.signal]);
        for (const byte of body) {
          await delay(upstream.dribbleIntervalMs, stop);
          if (stop.aborted || !await writeAll(conn, Uint8Array.of(byte))) return;
        }
        return;
      }
    }
  }

  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        connections++;
        open.add(conn);
        const task = serve(conn).catch(() => {}).finally(() => release(conn));
        tasks.add(task);
        void task.finally(() => tasks.delete(task));
      }
    } catch {
      // The listener was closed.
    }
  })();

  const upstream: FaultyUpstream & { body: Uint8Array; contentType: string } = {
    origin: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    fault: options.fault ?? "none",
    dribbleIntervalMs: options.dribbleIntervalMs ?? 1_000,
    body: options.body,
    contentType: options.contentType,
    get requests() {
      return requests;
    },
    get connections() {
      return connections;
    },
    get open() {
      return open.size;
    },
    allClosed(timeoutMs = 5_000) {
      if (open.size === 0) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          idleWaiters = idleWaiters.filter((w) => w !== done);
          reject(new Error(`${open.size} upstream connection(s) still open after ${timeoutMs} ms`));
        }, timeoutMs);
        const done = () => (clearTimeout(timer), resolve());
        idleWaiters.push(done);
      });
    },
    async close() {
      stopping.abort();
      listener.close();
      await accepting;
      for (const conn of [...open]) release(conn);
      await Promise.all([...tasks]);
    },
  };
  return upstream;
}

/** The request head (up to the blank line), or null if the client closed before sending one. */
async function readHead(conn: Deno.Conn): Promise<string | null> {
  const buffer = new Uint8Array(MAX_HEAD_BYTES);
  let length = 0;
  while (length < buffer.length) {
    const read = await conn.read(buffer.subarray(length));
    if (read === null) return null;
    length += read;
    const text = new TextDecoder().decode(buffer.subarray(0, length));
    if (text.includes("\r\n\r\n")) return text;
  }
  return null;
}

/** Reads and discards until the peer closes (or the connection is closed here). */
async function drain(conn: Deno.Conn): Promise<void> {
  const buffer = new Uint8Array(4096);
  try {
    while (await conn.read(buffer) !== null) {
      // Nothing after the head matters.
    }
  } catch {
    // Reset by the peer, or closed by us.
  }
}

/** Writes everything; false when the peer is gone. */
async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<boolean> {
  try {
    for (let offset = 0; offset < bytes.length;) offset += await conn.write(bytes.subarray(offset));
    return true;
  } catch {
    return false;
  }
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
}
