/**
 * The browser holds no secret: its processes get an allowlisted environment, read back here
 * from /proc/<pid>/environ of every process of the running service's Chromium. Also the launch
 * pieces behind it: preferences, flags, the sandbox decision.
 */
import assert from "node:assert/strict";
import {
  BROWSER_OWNER_VAR,
  browserEnvironment,
  launchArgs,
  sandboxPlan,
  WEBRTC_PREFERENCES,
  writeProfilePreferences,
} from "../../../lib/capture/local/launch.ts";
import { LEAK_MARK_VAR } from "../../../testing/fault_checks.ts";
import { startService } from "../../../testing/service_process.ts";

// The allowlist, plus what the shell running Debian's /usr/bin/chromium wrapper sets itself.
const ALLOWED =
  /^(PATH|HOME|TMPDIR|LANG|LC_ALL|TZ|FONTCONFIG_\w+|XDG_\w+|SHOTLINE_BROWSER_OWNER|PWD|SHLVL|_)$/;

Deno.test("the browser environment is an allowlist plus the owner tag", () => {
  const env = browserEnvironment({
    PATH: "/usr/bin",
    HOME: "/home/deno",
    LANG: "C.UTF-8",
    FONTCONFIG_PATH: "/etc/fonts",
    XDG_CACHE_HOME: "/tmp/cache",
    CACHE_ADMIN_TOKEN: "admin-secret",
    UPSTASH_REDIS_REST_TOKEN: "redis-secret",
    BROWSER_WS_ENDPOINT: "wss://u:p@fleet/",
    AWS_SECRET_ACCESS_KEY: "aws",
    LD_PRELOAD: "/tmp/evil.so",
    HTTPS_PROXY: "http://proxy:3128",
  }, 4242);
  assert.deepEqual(env, {
    PATH: "/usr/bin",
    HOME: "/home/deno",
    LANG: "C.UTF-8",
    FONTCONFIG_PATH: "/etc/fonts",
    XDG_CACHE_HOME: "/tmp/cache",
    [BROWSER_OWNER_VAR]: "4242",
  });
});

Deno.test("the sandbox is planned where it can start, and the reason given where not", () => {
  const probe = (uid: number | null, files: Record<string, string> = {}) => ({
    uid: () => uid,
    read: (path: string) => files[path] ?? null,
  });
  assert.deepEqual(sandboxPlan(probe(0)), { sandbox: false, reason: "the service runs as root" });
  assert.deepEqual(sandboxPlan(probe(1000)), { sandbox: true });
  assert.deepEqual(sandboxPlan(probe(1000, { "/proc/sys/user/max_user_namespaces": "15000" })), {
    sandbox: true,
  });
  assert.equal(
    sandboxPlan(probe(1000, { "/proc/sys/user/max_user_namespaces": "0" })).sandbox,
    false,
  );
  assert.equal(
    sandboxPlan(probe(1000, { "/proc/sys/kernel/unprivileged_userns_clone": "0" })).sandbox,
    false,
  );
  assert.ok(
    !launchArgs({ proxyUrl: "http://127.0.0.1:1", sandbox: true }).includes("--no-sandbox"),
  );
  assert.ok(
    launchArgs({ proxyUrl: "http://127.0.0.1:1", sandbox: false }).includes("--no-sandbox"),
  );
});

Deno.test("the profile's preferences close WebRTC's non-proxied UDP", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await writeProfilePreferences(dir);
    const prefs = JSON.parse(await Deno.readTextFile(`${dir}/Default/Preferences`));
    assert.deepEqual(prefs, WEBRTC_PREFERENCES);
    assert.equal(prefs.webrtc.ip_handling_policy, "disable_non_proxied_udp");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Pid and environment of every live process launched by `ownerPid`'s browser host. */
function browserProcesses(ownerPid: number): Map<number, Record<string, string>> {
  const found = new Map<number, Record<string, string>>();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    let raw: string;
    try {
      raw = new TextDecoder().decode(Deno.readFileSync(`/proc/${entry.name}/environ`));
    } catch {
      continue; // gone meanwhile, or not ours to read
    }
    const env = Object.fromEntries(
      raw.split("\0").filter(Boolean).map((
        kv,
      ) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
    );
    if (env[BROWSER_OWNER_VAR] === String(ownerPid)) found.set(Number(entry.name), env);
  }
  return found;
}

Deno.test({
  name: "no browser process of the running service holds a token (/proc/<pid>/environ)",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const secrets = {
      CACHE_ADMIN_TOKEN: "cache-admin-token-that-is-long-enough-0123",
      BROWSER_WS_ENDPOINT:
        "ws://fleet-user:fleet-pass@127.0.0.1:9/devtools/browser/x?token=fleet-tok",
      SOME_API_TOKEN: "unrelated-secret-of-the-operator",
    };
    await using svc = await startService({ KV_PATH: ":memory:", ...secrets });
    await svc.waitForLine((l) => l.msg === "browser launched");
    const processes = browserProcesses(svc.pid);
    const ourNames = new Set([...Object.keys(Deno.env.toObject()), ...Object.keys(secrets)]);
    assert.ok(processes.size >= 2, `browser and helpers found: ${[...processes.keys()]}`);
    for (const [pid, env] of processes) {
      const text = JSON.stringify(env);
      for (const value of [...Object.values(secrets), svc.mark, "fleet-pass", "fleet-tok"]) {
        assert.equal(text.includes(value), false, `process ${pid} holds a secret`);
      }
      assert.equal(env[LEAK_MARK_VAR], undefined, `process ${pid} inherited the service's env`);
      // Chromium's launcher script adds a few of its own (CHROME_WRAPPER...); nothing of ours
      // outside the allowlist may arrive.
      const ours = Object.keys(env).filter((name) => ourNames.has(name) && !ALLOWED.test(name));
      assert.deepEqual(ours, [], `process ${pid} inherited the service's variables`);
    }

    // /healthz: names and states, no endpoint or error text; the sandbox state of the local one.
    const health = await (await fetch(`${svc.base}/healthz`)).json();
    const text = JSON.stringify(health);
    assert.doesNotMatch(text, /127\.0\.0\.1|:9\b|fleet|refused|ECONNREFUSED/);
    const local = health.capture.find((b: { name: string }) => b.name === "chromium-local");
    const root = Deno.uid() === 0;
    if (root) assert.equal(local.sandbox, false, "root: no sandbox");
    const warnings = svc.lines.filter((l) => /WITHOUT its sandbox/.test(String(l.msg)));
    assert.equal(warnings.length, local.sandbox ? 0 : 1, "one clear warning when off");
    if (root) assert.match(String(warnings[0].reason), /root/);
  },
});
