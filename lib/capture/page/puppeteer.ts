/**
 * puppeteer-core, loaded on first use rather than at start-up: its `ws` dependency reads the
 * environment while it loads, so a process without `--allow-env` would otherwise die before
 * listening. Loaded here, a refusal only leaves the capture backends down (docs/operating.md).
 */
import { TimeoutError as BoundTimeoutError } from "../../timeout.ts";

type Puppeteer = typeof import("puppeteer-core").default;

let loading: Promise<Puppeteer> | null = null;

/** The puppeteer-core module; rejects (every time) when this process may not load it. */
export function loadPuppeteer(): Promise<Puppeteer> {
  loading ??= import("puppeteer-core").then((module) => module.default);
  return loading;
}

/** puppeteer's TimeoutError, known by name because puppeteer-core is loaded lazily. */
export function isPuppeteerTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === "TimeoutError" &&
    !(error instanceof BoundTimeoutError);
}
