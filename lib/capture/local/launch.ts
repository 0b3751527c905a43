/**
 * What the local Chromium starts with besides its flags: profile preferences that close WebRTC's
 * own UDP path, an environment of its own (never ours: ours holds tokens), and whether its
 * sandbox can be on.
 */

/** Where Debian, Ubuntu and Google's packages put the executable, in order of preference. */
export const CHROME_CANDIDATES = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
];

/** The executable to launch: CHROME_PATH if it exists, else the first candidate found. */
export function findChromium(chromePath?: string): { path: string } | { error: string } {
  if (chromePath) {
    if (!isFile(chromePath)) {
      return { error: `CHROME_PATH=${chromePath} does not exist or is not a file` };
    }
    // Why: spawning a file without execute permission fails with an EACCES 'error' event that
    // puppeteer (pipe mode) does not listen for, and that uncaught error ends the whole service.
    return isExecutable(chromePath)
      ? { path: chromePath }
      : { error: `CHROME_PATH=${chromePath} is not executable` };
  }
  const found = CHROME_CANDIDATES.find((path) => isFile(path) && isExecutable(path));
  return found
    ? { path: found }
    : { error: `no Chromium found at ${CHROME_CANDIDATES.join(", ")}` };
}

/**
 * WebRTC sends STUN/TURN over UDP straight from the browser, around any proxy. Full Chrome
 * (`--headless=new`) ignores `--force-webrtc-ip-handling-policy`; it reads these preferences,
 * and incognito contexts inherit them from the profile. With them no UDP leaves for any address:
 * the egress proxy, which speaks TCP only, stays the one way out.
 */
export const WEBRTC_PREFERENCES = {
  webrtc: {
    ip_handling_policy: "disable_non_proxied_udp",
    multiple_routes_enabled: false,
    nonproxied_udp_enabled: false,
  },
};

/** Variables the browser process may see; anything else (tokens, endpoints) stays with us. */
const ENVIRONMENT_NAMES = new Set(["PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "TZ"]);
// Font configuration and the XDG base directories (fontconfig and Chromium read them).
const ENVIRONMENT_PREFIXES = ["FONTCONFIG_", "XDG_"];

/** Environment variable naming the service process that launched a browser (finds orphans). */
export const BROWSER_OWNER_VAR = "SHOTLINE_BROWSER_OWNER";

/** Writes the preferences into `<profile>/Default/Preferences` (before the first launch). */
export async function writeProfilePreferences(profile: string): Promise<void> {
  await Deno.mkdir(`${profile}/Default`, { recursive: true });
  await Deno.writeTextFile(`${profile}/Default/Preferences`, JSON.stringify(WEBRTC_PREFERENCES));
}

/** The allowlisted part of `env`, plus the owner tag. */
export function browserEnvironment(
  env: Record<string, string>,
  ownerPid: number,
): Record<string, string> {
  const kept = Object.entries(env).filter(([name]) =>
    ENVIRONMENT_NAMES.has(name) || ENVIRONMENT_PREFIXES.some((p) => name.startsWith(p))
  );
  return { ...Object.fromEntries(kept), [BROWSER_OWNER_VAR]: String(ownerPid) };
}

/** Puppeteer's defaults plus ours; `--proxy-bypass-list=<-loopback>` stops the loopback exemption. */
export function launchArgs(options: { proxyUrl: string; sandbox: boolean }): string[] {
  return [
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    // Only where the sandbox cannot start (root, no user namespaces): see sandboxPlan.
    ...(options.sandbox ? [] : ["--no-sandbox"]),
    // Every request, loopback included, goes through the egress proxy (the network boundary).
    `--proxy-server=${options.proxyUrl}`,
    "--proxy-bypass-list=<-loopback>",
    // QUIC and WebTransport are UDP, which an HTTP proxy cannot carry. (WebRTC's UDP is closed
    // by WEBRTC_PREFERENCES: full Chrome does not read a command-line switch for it.)
    "--disable-quic",
  ];
}

/** Whether to try the sandbox, and if not, why (for the one warning and /healthz). */
export type SandboxPlan = { sandbox: true } | { sandbox: false; reason: string };

/**
 * Chromium refuses to start sandboxed as root, and its namespace sandbox needs unprivileged
 * user namespaces; anywhere else the sandbox is tried first (see the host's fallback).
 */
export function sandboxPlan(probe: SandboxProbe = SYSTEM_PROBE): SandboxPlan {
  const uid = probe.uid();
  if (uid === 0) return { sandbox: false, reason: "the service runs as root" };
  const maxNamespaces = probe.read("/proc/sys/user/max_user_namespaces");
  if (maxNamespaces !== null && Number(maxNamespaces) === 0) {
    return { sandbox: false, reason: "user namespaces are disabled (max_user_namespaces=0)" };
  }
  if (probe.read("/proc/sys/kernel/unprivileged_userns_clone") === "0") {
    return { sandbox: false, reason: "unprivileged user namespaces are disabled" };
  }
  return { sandbox: true };
}

/** What sandboxPlan looks at (tests pass their own). */
export interface SandboxProbe {
  /** The effective user id, or null where unknown (no permission, not Unix). */
  uid(): number | null;
  /** A file's trimmed content, or null when unreadable. */
  read(path: string): string | null;
}

/** This process's uid and the real /proc files. */
export const SYSTEM_PROBE: SandboxProbe = {
  uid() {
    try {
      return Deno.uid();
    } catch {
      return null;
    }
  },
  read(path) {
    try {
      return Deno.readTextFileSync(path).trim();
    } catch {
      return null;
    }
  },
};

/** Any execute bit (a finer check would need access(2)); no mode bits (Windows) counts as yes. */
function isExecutable(path: string): boolean {
  try {
    const { mode } = Deno.statSync(path);
    return mode === null || (mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}
