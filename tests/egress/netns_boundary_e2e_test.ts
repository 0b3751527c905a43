/**
 * The capture boundary proven on the wire: the real service (main.ts, ALLOW_PRIVATE_NETWORK=
 * false) runs inside a network namespace of its own, where the private, loopback, metadata and
 * cloud-internal addresses exist with TCP and UDP canaries on them, and the attacker's site sits
 * on a "public" address (1.2.3.4). Each attacker page tries one vector; no canary may hear
 * anything. The namespace has no link to the outside: no packet can leave it.
 * Needs root (or CAP_SYS_ADMIN) for `unshare -n`, and iproute2; skipped with a message otherwise.
 */
import assert from "node:assert/strict";
import type { NetnsReport } from "./netns/inner.ts";
import { FORBIDDEN_V4, FORBIDDEN_V6, TCP_PORTS, UDP_PORTS, VECTORS } from "./netns/vectors.ts";

const HERE = new URL("./netns/", import.meta.url);

/** Why the namespace tests cannot run here, or null when they can. */
function unavailable(): string | null {
  try {
    const probe = new Deno.Command("unshare", { args: ["-n", "ip", "link", "set", "lo", "up"] })
      .outputSync();
    if (probe.success) return null;
    return `unshare -n failed: ${new TextDecoder().decode(probe.stderr).trim()}`;
  } catch (error) {
    return `unshare or ip is missing (${error instanceof Error ? error.message : error})`;
  }
}

const reason = unavailable();
if (reason) {
  console.warn(
    `SKIPPED network-namespace boundary tests: ${reason}. Run them as root with ` +
      "iproute2 installed (apt-get install iproute2).",
  );
}

/** Runs a script of ./netns/ in a fresh network namespace; its last stdout line, parsed. */
async function inNamespace<T>(script: string): Promise<T> {
  const output = await new Deno.Command("unshare", {
    args: ["-n", Deno.execPath(), "run", "-A", "--unstable-net", new URL(script, HERE).pathname],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout).trim().split("\n");
  const stderr = new TextDecoder().decode(output.stderr);
  assert.ok(output.success, `${script} failed (${output.code}):\n${stderr.slice(-3000)}`);
  return JSON.parse(stdout.at(-1)!) as T;
}

/** Every canary, as the keys the scripts use ("udp 10.0.0.1 3478"). */
function allCanaries(): string[] {
  const hosts = [...FORBIDDEN_V4, ...FORBIDDEN_V6];
  return [
    ...hosts.flatMap((h) => [
      ...TCP_PORTS.map((p) => `tcp ${h} ${p}`),
      ...UDP_PORTS.map((p) => `udp ${h} ${p}`),
    ]),
    ...UDP_PORTS.map((p) => `udp 1.2.3.4 ${p}`),
  ].sort();
}

Deno.test({
  name: "no vector of a captured page reaches a forbidden address (real service, own netns)",
  ignore: reason !== null,
  async fn() {
    const report = await inNamespace<NetnsReport>("inner.ts");
    // Not a failure of the boundary, but worth a reader's eye: the service logged an error.
    for (const line of report.serviceErrors) console.warn(`service error: ${line}`);
    // The positive control: every canary heard a direct contact, so silence below means something.
    assert.deepEqual(Object.keys(report.positiveControl).sort(), allCanaries());
    assert.equal(report.canaries, allCanaries().length);

    assert.deepEqual(Object.keys(report.vectors).sort(), Object.keys(VECTORS).sort());
    const contacted = Object.entries(report.vectors)
      .filter(([, result]) => Object.keys(result.contacts).length > 0)
      .map(([name, result]) => `${name}: ${JSON.stringify(result.contacts)}`);
    assert.deepEqual(contacted, [], "vectors that reached a canary");
    // The favicon the service loads itself: every vector left out, the attacker's own kept,
    // with hostile NO_PROXY and HTTP(S)_PROXY in the service's environment.
    const icons = Object.keys(VECTORS).filter((name) => name.startsWith("favicon"));
    for (const name of icons) {
      assert.equal(report.vectors[name].status, 200, name);
      assert.equal(report.vectors[name].icon, name === "faviconPublic", name);
    }
    assert.equal(report.htmlIcon.status, 200);
    assert.equal(report.htmlIcon.icon, false);
    assert.deepEqual(report.htmlIcon.contacts, {});
    // The caller's scripts are the page's code: the same boundary holds them.
    assert.equal(report.requestScripts.status, 200, "the page was shot");
    assert.equal(report.requestScripts.seen, "ran", "the scripts ran");
    assert.deepEqual(report.requestScripts.contacts, {}, "scripts reached no canary");
    console.log(JSON.stringify({
      faviconContacts: Object.fromEntries(
        [...icons.map((n) => [n, report.vectors[n].contacts]), [
          "htmlJob",
          report.htmlIcon.contacts,
        ]],
      ),
      publicIconKept: report.vectors.faviconPublic.icon,
    }));
    // The attacker pages did run (their report arrived), so the attempts were made.
    for (const name of ["fetch", "worker", "popup", "webrtcStun", "webrtcFromBlankFrame"]) {
      assert.notEqual(report.vectors[name].seen, null, `${name}: the page ran`);
      assert.equal(report.vectors[name].status, 200, `${name}: the capture still answers`);
    }
    // The page lockdown took WebRTC away, even from a fresh about:blank frame.
    for (const name of ["webrtcStun", "webrtcTurnUdp", "webrtcTurnTcp", "webrtcFromBlankFrame"]) {
      assert.match(String(report.vectors[name].seen), /SecurityError/, name);
    }

    // Capturing a forbidden host directly, or through a redirect: 400, and no contact.
    for (const [target, result] of Object.entries(report.targets)) {
      assert.equal(result.status, 400, target);
      assert.deepEqual(result.contacts, {}, target);
    }
  },
});

Deno.test({
  name: "the profile's WebRTC preferences alone stop STUN, TURN and remote candidates",
  ignore: reason !== null,
  async fn() {
    const result = await inNamespace<{
      positiveControl: Record<string, number>;
      answered: string[];
      contacts: Record<string, number>;
    }>("prefs_only.ts");
    assert.deepEqual(Object.keys(result.positiveControl).sort(), allCanaries());
    // Without the lockdown the page does get peer connections...
    assert.deepEqual(result.answered, ["created", "created"]);
    // ...and still not one packet reaches any canary, public address included.
    assert.deepEqual(result.contacts, {});
  },
});

Deno.test({
  name: "an https page's WebTransport (QUIC over UDP) reaches no canary",
  ignore: reason !== null,
  async fn() {
    const result = await inNamespace<{
      positiveControl: Record<string, number>;
      seen: string | null;
      contacts: Record<string, number>;
    }>("secure_context.ts");
    assert.deepEqual(Object.keys(result.positiveControl).sort(), allCanaries());
    const seen = JSON.parse(result.seen ?? "{}");
    // The page was a secure context with WebTransport available, so the attempts were real.
    assert.equal(seen.secure, "true");
    assert.equal(seen.webTransport, "function");
    assert.notEqual(seen.transports, undefined);
    assert.doesNotMatch(String(seen.transports), /open/);
    assert.deepEqual(result.contacts, {});
  },
});
