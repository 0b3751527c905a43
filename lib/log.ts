export type LogLevel = "debug" | "info" | "warn" | "error";

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LogFields = Record<string, unknown>;

/** Structured logger: one JSON object per line, so operators can grep and ship it as is. */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

/** A logger writing JSON lines to `write` (stdout by default) at or above `level`. */
export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => console.log(line),
  now: () => number = Date.now,
): Logger {
  const emit = (lineLevel: LogLevel) => (msg: string, fields: LogFields = {}) => {
    if (RANK[lineLevel] < RANK[level]) return;
    write(JSON.stringify({
      time: new Date(now()).toISOString(),
      level: lineLevel,
      msg,
      ...fields,
    }, errorReplacer));
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}

/** A logger that keeps lines in memory, for tests that assert on what was logged. */
export function createMemoryLogger(): Logger & { lines: LogFields[] } {
  const lines: LogFields[] = [];
  const logger = createLogger("debug", (line) => lines.push(JSON.parse(line)));
  return Object.assign(logger, { lines });
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    return { name: value.name, message: value.message, stack: value.stack };
  }
  return value;
}
