/**
 * The network boundary in remote mode, run by fleet_boundary_e2e_test.ts inside a network namespace
 * of its own (it refuses to run anywhere else). In it: a "public" attacker site on 1.2.3.4,
 * canaries (TCP and UDP) on the forbidden 10.0.0.1, 127.0.0.1 and 169.254.169.254, a "fleet"
 * Chromium with remote debugging and full network access of its own, and the real service
 * (main.ts) with no local browser, BROWSER_WS_ENDPOINT at the fleet and its egress proxy for
 * remote browsers on 10.0.0.2 (EGRESS_PROXY_URL). Every attacker page must make zero contacts.
 */
import assert from "node:assert/strict";
import puppeteer from "puppeteer-core";
import { CHROME_CANDIDATES } from "../../lib/capture/local/browser.ts";
import {
  attackerPage,
  FALLBACK_ICON,
  FORBIDDEN,
  SERVICE_WORKER,
  TCP_PORTS,
  UDP_PORTS,
  VECTORS,
} from "../../testing/attacker_pages.ts";
import { startRemoteChromium } from "../../testing/remote_chromium.ts";
import {
  type Canaries,
  type Contact,
  isolatedAddresses,
  startCanaries,
  touchCanaries,
} from "../../testing/netns.ts";
import { startService } from "../../testing/service_process.ts";
import { hostileProxyEnv } from "../../testing/hostile_env.ts";
import { solidPng } from "../../testing/icons.ts";

const ATTACKER = "1.2.3.4";
// The service's host as the fleet sees it (a private address, as in a VPC).
const SERVICE_HOST = "10.0.0.2";
const PROXY_PORT = 8118;
// Requests and datagrams a page started just before its capture ended arrive within this.
const STRAGGLER_WAIT_MS = 2_000;

function serveAttacker() {
  const ran = new Set<string>();
  const server = Deno.serve({ hostname: ATTACKER, port: 80, onListen() {} }, async (request) => {
    const url = new URL(request.url);
    const name = url.pathname.slice("/v/".length);
    if (url.pathname.startsWith("/v/") && name in VECTORS) {
      return new Response(attackerPage(name), { headers: { "content-type": "text/html" } });
    }
    if (url.pathname === "/ran") ran.add(url.searchParams.get("v") ?? "");
    if (url.pathname === "/slow") await new Promise((resolve) => setTimeout(resolve, 400));
    if (url.pathname === "/redirect") {
      return new Response(null, {
        status: 302,
        headers: { location: url.searchParams.get("to")! },
      });
    }
    if (url.pathname === "/favicon.ico") return Response.redirect(FALLBACK_ICON, 302);
    if (url.pathname === "/icon.png") {
      return new Response(solidPng(16, [255, 0, 0]), { headers: { "content-type": "image/png" } });
    }
    if (url.pathname === "/icon-page") {
      const page = `<!doctype html><link rel="icon" href="/icon.png"><p>public icon</p>`;
      return new Response(page, { headers: { "content-type": "text/html" } });
    }
    if (url.pathname === "/sw.js") {
      return new Response(SERVICE_WORKER, { headers: { "content-type": "text/javascript" } });
    }
    return new Response(null, { status: url.pathname === "/ran" ? 204 : 404 });
  });
  return { ran, close: () => server.shutdown() };
}

/** The fleet, used directly (no proxy): it can reach every canary over TCP and WebRTC's UDP. */
async function fleetReachesCanaries(endpoint: string): Promise<void> {
  const browser = await puppeteer.connect({ browserWSEndpoint: endpoint });
  try {
    const page = await browser.newPage();
    await page.evaluate(`(async () => {
      const pc = new RTCPeerConnection({ iceServers: [{ urls: "stun:10.0.0.1:3478" }] });
      pc.createDataChannel("x");
      await pc.setLocalDescription(await pc.createOffer());
      await new Promise((resolve) => setTimeout(resolve, 1000));
      pc.close();
    })()`);
    for (const ip of FORBIDDEN) await page.goto(`http://${ip}:8080/`).catch(() => {});
    // Off the error page, whose automatic reloads would keep knocking on the last canary.
    // (Not closed: closing a page on a network error page can hang; the fleet's disposal
    // at the end takes it down.)
    await page.goto("about:blank");
  } finally {
    await browser.disconnect();
  }
}

const key = (c: Contact) => `${c.proto} ${c.address}:${c.port}`;

/** The real service with no local browser, rendering on the fleet; `env` adds to the basics. */
function startFleetService(fleetEndpoint: string, env: Record<string, string> = {}) {
  return startService({
    BROWSER_WS_ENDPOINT: fleetEndpoint,
    KV_PATH: ":memory:",
    RATE_LIMIT_PER_MINUTE: "1000",
    CAPTURE_TIMEOUT_MS: "10000",
    // An operator's proxy variables at their worst: NO_PROXY names loopback and the metadata
    // address, HTTP(S)_PROXY a canary. Neither may move a byte the service fetches for a page.
    ...hostileProxyEnv("http://169.254.169.254:3478"),
    ...env,
  }, { denyRead: CHROME_CANDIDATES });
}

/** POST /api/screenshot of one vector's page; the status. */
async function captureVector(base: string, name: string): Promise<number> {
  const response = await fetch(`${base}/api/screenshot`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url: `http://${ATTACKER}/v/${name}`, forceRefresh: true }),
  });
  await response.body?.cancel();
  return response.status;
}

/** Contacts collected until every one of `expected` is among them (datagrams arrive late). */
async function heardAll(canaries: Canaries, expected: string[]): Promise<Set<string>> {
  const heard = new Set<string>();
  for (let i = 0; i < 60 && !expected.every((k) => heard.has(k)); i++) {
    for (const contact of canaries.take()) heard.add(key(contact));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  for (const contact of canaries.take()) heard.add(key(contact));
  return heard;
}

Deno.test("remote mode with EGRESS_PROXY_URL: no attacker page reaches a forbidden address", async (t) => {
  await isolatedAddresses([ATTACKER, SERVICE_HOST, "10.0.0.1", "169.254.169.254"]);
  const targets = { addresses: FORBIDDEN, tcpPorts: TCP_PORTS, udpPorts: UDP_PORTS };
  const canaries = await startCanaries(targets);
  const attacker = serveAttacker();
  await using fleet = await startRemoteChromium();
  const service = await startFleetService(fleet.endpoint, {
    EGRESS_PROXY_LISTEN: `${SERVICE_HOST}:${PROXY_PORT}`,
    EGRESS_PROXY_URL: `http://${SERVICE_HOST}:${PROXY_PORT}`,
  });
  try {
    await t.step(
      "positive control: the canaries hear us, and the fleet reaches them directly",
      async () => {
        await touchCanaries(targets);
        const every = FORBIDDEN.flatMap((ip) => [
          ...TCP_PORTS.map((port) => `tcp ${ip}:${port}`),
          ...UDP_PORTS.map((port) => `udp ${ip}:${port}`),
        ]);
        const heard = await heardAll(canaries, every);
        assert.deepEqual(every.filter((k) => !heard.has(k)), [], "canaries that heard nothing");
        await fleetReachesCanaries(fleet.endpoint);
        const fromFleet = [...FORBIDDEN.map((ip) => `tcp ${ip}:8080`), "udp 10.0.0.1:3478"];
        const direct = await heardAll(canaries, fromFleet);
        assert.deepEqual(fromFleet.filter((k) => !direct.has(k)), [], "the fleet did not reach");
        // Chromium retries a connection the canary closed: those echoes must not count later.
        await new Promise((resolve) => setTimeout(resolve, STRAGGLER_WAIT_MS));
        canaries.take();
      },
    );
    await t.step("the service runs the remote backend alone, boundary enforced", async () => {
      const health = await (await fetch(`${service.base}/healthz`)).json();
      assert.equal(health.boundary, "enforced");
      assert.deepEqual(health.capture.map((b: { name: string }) => b.name), ["chromium-remote"]);
    });
    const contacts: Record<string, string[]> = {};
    const statuses: Record<string, number> = {};
    for (const name of Object.keys(VECTORS)) {
      await t.step(`vector ${name}: zero contacts`, async () => {
        statuses[name] = await captureVector(service.base, name);
        contacts[name] = canaries.take().map(key);
        assert.deepEqual(contacts[name], []);
      });
    }
    await t.step(
      "the public icon is still kept, and the html job's loopback icon is not",
      async () => {
        const shoot = async (body: Record<string, unknown>) => {
          const response = await fetch(`${service.base}/api/screenshot`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ ...body, forceRefresh: true }),
          });
          assert.equal(response.status, 200);
          return (await response.json()).page;
        };
        const kept = await shoot({ url: `http://${ATTACKER}/icon-page` });
        assert.match(kept.faviconData ?? "", /^data:image\/png;base64,/);
        const html = `<link rel="icon" href="http://127.0.0.1:8080/secret.png">`;
        assert.equal((await shoot({ html })).faviconData, null);
        contacts.htmlJob = canaries.take().map(key);
        assert.deepEqual(contacts.htmlJob, []);
      },
    );
    await t.step("nothing arrives late, and every vector's script ran", async () => {
      await new Promise((resolve) => setTimeout(resolve, STRAGGLER_WAIT_MS));
      assert.deepEqual(canaries.take().map(key), []);
      // Every page rendered (200) and ran its script: the vectors were really tried.
      assert.deepEqual(Object.entries(statuses).filter(([, s]) => s !== 200), []);
      const silent = Object.keys(VECTORS).filter((n) => !attacker.ran.has(n));
      assert.deepEqual(silent, []);
    });
    console.log(JSON.stringify({ fleetBoundary: { statuses, contacts } }));
    await service.stop();
    await t.step(
      "negative control: without EGRESS_PROXY_URL the same pages get through",
      async () => {
        await using advisory = await startFleetService(fleet.endpoint);
        const health = await (await fetch(`${advisory.base}/healthz`)).json();
        assert.equal(health.boundary, "advisory");
        assert.ok(advisory.lines.some((l) => /advisory network boundary/.test(String(l.msg))));
        // The request guard cannot see a worker's WebSocket nor stop a script's navigation.
        for (const name of ["worker_websocket", "js_navigation"]) {
          await captureVector(advisory.base, name);
        }
        await new Promise((resolve) => setTimeout(resolve, STRAGGLER_WAIT_MS));
        const escaped = canaries.take().map(key);
        assert.ok(escaped.length > 0, "the vectors were live, yet nothing reached a canary");
        console.log(JSON.stringify({ advisoryEscapes: escaped }));
      },
    );
  } finally {
    await service.stop();
    await attacker.close();
    await canaries.close();
  }
});
