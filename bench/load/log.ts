/** The service's JSON-lines log, read back by `deno task load` (whole file, or one run's bytes). */
import { median } from "../support/measure.ts";

/** Lines of the service log at level error or warn, and their messages, counted. */
export async function logSummary(logPath: string) {
  const counts = new Map<string, number>();
  let lines = 0;
  let rest = "";
  const count = (line: string) => {
    if (!line) return;
    lines++;
    const level = /"level":"(warn|error)"/.exec(line)?.[1];
    if (!level) return;
    const key = `${level}: ${/"msg":"([^"]*)"/.exec(line)?.[1] ?? "?"}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  };
  // Streamed: a load run writes hundreds of MB of access-log lines.
  const file = await Deno.open(logPath);
  for await (const text of file.readable.pipeThrough(new TextDecoderStream())) {
    const parts = (rest + text).split("\n");
    rest = parts.pop()!;
    parts.forEach(count);
  }
  count(rest);
  return { lines, counts };
}

/** What the service logged from byte `offset` on (one load run), tallied. */
export interface LogWindow {
  /** Bytes in the log file at the end of the window (the next window's offset). */
  end: number;
  requests: number;
  /** Service-side durationMs of the 200 responses, median. */
  okMedianMs: number;
  /** `cache` field of access-log lines: hit / miss (capture and post caches). */
  cache: Record<string, number>;
  /** Requests the rate limiter let through because the store did not answer in time. */
  failedOpen: number;
  /** warn and error lines by message. */
  warnings: Record<string, number>;
}

/** Reads the log from `offset` to its current end; every line is one JSON object. */
export async function readLogWindow(logPath: string, offset: number): Promise<LogWindow> {
  const file = await Deno.open(logPath);
  try {
    await file.seek(offset, Deno.SeekMode.Start);
    const bytes = new Uint8Array(await new Response(file.readable).arrayBuffer());
    const text = new TextDecoder().decode(bytes);
    const window: LogWindow = {
      end: offset + bytes.length,
      requests: 0,
      okMedianMs: 0,
      cache: {},
      failedOpen: 0,
      warnings: {},
    };
    const ok: number[] = [];
    for (const line of text.split("\n")) {
      if (!line.startsWith("{")) continue;
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line);
      } catch {
        continue; // a line cut at the window's end
      }
      if (entry.level === "warn" || entry.level === "error") {
        const key = `${entry.level}: ${entry.msg}`;
        window.warnings[key] = (window.warnings[key] ?? 0) + 1;
      }
      if (entry.msg !== "request") continue;
      window.requests++;
      if (entry.status === 200) ok.push(Number(entry.durationMs));
      if (typeof entry.cache === "string") {
        window.cache[entry.cache] = (window.cache[entry.cache] ?? 0) + 1;
      }
      if (entry.rateLimit === "failed-open") window.failedOpen++;
    }
    window.okMedianMs = ok.length ? median(ok) : 0;
    return window;
  } finally {
    try {
      file.close();
    } catch {
      // closed with its readable
    }
  }
}
