/**
 * Runs inside a fresh network namespace (`unshare -n`, started by netns_boundary_e2e_test.ts): sets
 * up the namespace's addresses, canaries on every forbidden address, the attacker's site on the
 * "public" address, and the real service (main.ts, ALLOW_PRIVATE_NETWORK=false); captures one
 * attacker page per vector and prints, as its last stdout line, the contacts each vector caused.
 * Nothing here can send a packet outside the namespace: it has no link to the outside at all.
 */
import { startService } from "../../../testing/service_process.ts";
import { hostileProxyEnv } from "../../../testing/hostile_env.ts";
import { solidPng } from "../../../testing/icons.ts";
import {
  ATTACKER,
  FALLBACK_ICON,
  FORBIDDEN_V4,
  FORBIDDEN_V6,
  HTML_ICON_JOB,
  REQUEST_SCRIPTS,
  SERVICE_WORKER,
  TCP_PORTS,
  UDP_PORTS,
  vectorPage,
  VECTORS,
} from "./vectors.ts";

/** What one capture caused: contacts per canary ("proto address port") and what the page saw. */
export interface VectorResult {
  status: number;
  contacts: Record<string, number>;
  seen: string | null;
  /** Whether the answer carried the page's icon (page.faviconData). */
  icon?: boolean;
}

/** The last stdout line of this script. */
export interface NetnsReport {
  positiveControl: Record<string, number>;
  canaries: number;
  vectors: Record<string, VectorResult>;
  /** Top-level capture URLs on forbidden hosts: their status and contacts. */
  targets: Record<string, VectorResult>;
  /** An html job (no URL) that names a loopback icon. */
  htmlIcon: VectorResult;
  /** A plain page captured with the caller's `scripts` reaching for every forbidden address. */
  requestScripts: VectorResult;
  /** The service's error-level log lines (an unhandled rejection, say), for the test's output. */
  serviceErrors: string[];
}

// After a capture answers, late packets (ICE retries, a worker still running) get this long.
const LINGER_MS = 1_000;

function run(...args: string[]) {
  const out = new Deno.Command("ip", { args }).outputSync();
  if (!out.success) {
    throw new Error(`ip ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

/**
 * IPv6 duplicate address detection makes each new link-local address change state a second or
 * two after its link comes up; Chromium takes that for a network change and fails the
 * navigation in flight with ERR_NETWORK_CHANGED. This namespace's addresses are all its own.
 */
export function withoutIpv6Dad() {
  for (const scope of ["all", "default"]) {
    try {
      Deno.writeTextFileSync(`/proc/sys/net/ipv6/conf/${scope}/accept_dad`, "0");
    } catch {
      // A kernel without IPv6 has nothing to detect.
    }
  }
}

/** lo up; a veth pair: v0 carries the attacker's address and the default route, v1 the rest. */
export function setUpNetwork() {
  withoutIpv6Dad();
  run("link", "set", "lo", "up");
  run("link", "add", "v0", "type", "veth", "peer", "name", "v1");
  run("addr", "add", `${ATTACKER}/24`, "dev", "v0");
  for (const a of FORBIDDEN_V4.filter((a) => a !== "127.0.0.1")) {
    run("addr", "add", `${a}/32`, "dev", "v1");
  }
  run("-6", "addr", "add", "fd00::1/128", "dev", "v1", "nodad");
  run("link", "set", "v0", "up");
  run("link", "set", "v1", "up");
  // WebRTC gathers only with a route; this one leads into v1, inside the namespace.
  run("route", "add", "default", "via", "1.2.3.1", "dev", "v0", "onlink");
}

/** TCP and UDP listeners on every forbidden address (and UDP on the attacker's). */
export function startCanaries() {
  const contacts: Record<string, number> = {};
  const hit = (key: string) => contacts[key] = (contacts[key] ?? 0) + 1;
  const closers: (() => void)[] = [];
  const listen = (hostname: string, shown: string) => {
    for (const port of TCP_PORTS) {
      const listener = Deno.listen({ hostname, port });
      closers.push(() => listener.close());
      (async () => {
        for await (const conn of listener) {
          hit(`tcp ${shown} ${port}`);
          conn.close();
        }
      })().catch(() => {});
    }
    udp(hostname, shown);
  };
  const udp = (hostname: string, shown: string) => {
    for (const port of UDP_PORTS) {
      const socket = Deno.listenDatagram({ transport: "udp", hostname, port });
      closers.push(() => socket.close());
      (async () => {
        for await (const _ of socket) hit(`udp ${shown} ${port}`);
      })().catch(() => {});
    }
  };
  for (const a of FORBIDDEN_V4) listen(a, a);
  for (const a of FORBIDDEN_V6) listen(a, a);
  // No STUN or TURN packet may leave for a public address either.
  udp(ATTACKER, ATTACKER);
  const count = FORBIDDEN_V4.length + FORBIDDEN_V6.length;
  return {
    canaries: count * (TCP_PORTS.length + UDP_PORTS.length) + UDP_PORTS.length,
    take() {
      const taken = { ...contacts };
      for (const key of Object.keys(contacts)) delete contacts[key];
      return taken;
    },
    close: () => closers.forEach((close) => close()),
  };
}

/** Contacts every canary directly: each must register, or a zero below would prove nothing. */
export async function positiveControl(canaries: ReturnType<typeof startCanaries>) {
  const sender = Deno.listenDatagram({ transport: "udp", hostname: "0.0.0.0", port: 0 });
  const sender6 = Deno.listenDatagram({ transport: "udp", hostname: "::", port: 0 });
  const hosts = [...FORBIDDEN_V4, ...FORBIDDEN_V6];
  for (const hostname of hosts) {
    for (const port of TCP_PORTS) (await Deno.connect({ hostname, port })).close();
    for (const port of UDP_PORTS) {
      const socket = hostname.includes(":") ? sender6 : sender;
      await socket.send(new Uint8Array([1]), { transport: "udp", hostname, port });
    }
  }
  for (const port of UDP_PORTS) {
    await sender.send(new Uint8Array([1]), { transport: "udp", hostname: ATTACKER, port });
  }
  await new Promise((r) => setTimeout(r, 300));
  sender.close();
  sender6.close();
  return canaries.take();
}

/** The attacker's site on the public address: vector pages, a redirector, a late image. */
function startAttacker(seen: Map<string, string>) {
  return Deno.serve({ hostname: ATTACKER, port: 80, onListen() {} }, async (request) => {
    const url = new URL(request.url);
    const [, kind, name] = url.pathname.split("/");
    const html = (body: string) => new Response(body, { headers: { "content-type": "text/html" } });
    if (kind === "v" && VECTORS[name]) return html(vectorPage(name));
    if (kind === "seen") {
      seen.set(name, await request.text());
      return new Response(null, { status: 204 });
    }
    if (kind === "redirect") {
      return new Response(null, {
        status: 302,
        headers: { location: url.searchParams.get("to")! },
      });
    }
    if (kind === "sw.js") {
      return new Response(SERVICE_WORKER, { headers: { "content-type": "text/javascript" } });
    }
    if (kind === "favicon.ico") return Response.redirect(FALLBACK_ICON, 302);
    if (kind === "icon.png") {
      return new Response(solidPng(16, [255, 0, 0]), { headers: { "content-type": "image/png" } });
    }
    if (kind === "hold") {
      await new Promise((r) => setTimeout(r, 1_500));
      return new Response(null, { status: 204 });
    }
    return new Response("not found", { status: 404 });
  });
}

async function main() {
  setUpNetwork();
  const canaries = startCanaries();
  const positive = await positiveControl(canaries);
  const seen = new Map<string, string>();
  const attacker = startAttacker(seen);
  const service = await startService({
    KV_PATH: ":memory:",
    ALLOW_PRIVATE_NETWORK: "false",
    RATE_LIMIT_PER_MINUTE: "10000",
    CAPTURE_TIMEOUT_MS: "10000",
    // An operator's proxy variables at their worst: NO_PROXY names loopback and the metadata
    // address, HTTP(S)_PROXY a canary. Neither may move a byte the service fetches for a page.
    ...hostileProxyEnv("http://192.168.0.1:5000"),
  });
  const capture = async (
    target: { url: string; scripts?: string[] } | { html: string },
  ): Promise<VectorResult> => {
    const res = await fetch(`${service.base}/api/screenshot`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...target, forceRefresh: true }),
    });
    const body = await res.json().catch(() => null);
    await new Promise((r) => setTimeout(r, LINGER_MS));
    const icon = typeof body?.page?.faviconData === "string";
    return { status: res.status, contacts: canaries.take(), seen: null, icon };
  };
  const report: NetnsReport = {
    positiveControl: positive,
    canaries: canaries.canaries,
    vectors: {},
    targets: {},
    htmlIcon: { status: 0, contacts: {}, seen: null },
    requestScripts: { status: 0, contacts: {}, seen: null },
    serviceErrors: [],
  };
  try {
    for (const name of Object.keys(VECTORS)) {
      const result = await capture({ url: `http://${ATTACKER}/v/${name}` });
      report.vectors[name] = { ...result, seen: seen.get(name) ?? null };
    }
    const hosts = [...FORBIDDEN_V4, ...FORBIDDEN_V6.map((a) => `[${a}]`), "localhost"];
    for (const host of hosts) {
      report.targets[host] = await capture({ url: `http://${host}:8080/` });
    }
    report.targets.redirect = await capture({
      url: `http://${ATTACKER}/redirect?to=${encodeURIComponent("http://10.0.0.1:8080/")}`,
    });
    report.htmlIcon = await capture({ html: HTML_ICON_JOB });
    report.requestScripts = {
      ...await capture({ url: `http://${ATTACKER}/icon.png`, scripts: REQUEST_SCRIPTS }),
      seen: seen.get("scripts") ?? null,
    };
  } catch (error) {
    // A refused connection usually means the service died: give its exit status time to arrive.
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([service.status, new Promise((r) => timer = setTimeout(r, 5_000))]);
    clearTimeout(timer);
    console.error(service.describe());
    throw error;
  } finally {
    report.serviceErrors = service.lines.filter((l) => l.level === "error").map((l) =>
      JSON.stringify(l)
    );
    await service.stop();
    await attacker.shutdown();
    canaries.close();
  }
  console.log(JSON.stringify(report));
}

if (import.meta.main) await main();
