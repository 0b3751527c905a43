/**
 * Vectors that only exist on an https page (a secure context): WebTransport (QUIC, i.e. UDP)
 * and service workers. Inside the namespace of netns_boundary_e2e_test.ts: the local backend's
 * browser host behind the egress proxy, a capture-like context with the page lockdown, and the
 * attacker's page on https://1.2.3.4 with a throwaway certificate that only this page's DevTools
 * session is told to accept (the service itself never ignores certificate errors).
 * Prints { positiveControl, seen, contacts } as its last stdout line.
 */
import { lockDownPage } from "../../../lib/capture/page/lockdown.ts";
import { withCapturePage } from "./browser_page.ts";
import { positiveControl, setUpNetwork, startCanaries } from "./inner.ts";
import { ATTACKER, FORBIDDEN_V4, FORBIDDEN_V6, SERVICE_WORKER } from "./vectors.ts";

// QUIC retries its handshake for a while; this covers several attempts.
const ATTEMPT_MS = 4_000;

const TARGETS = [...FORBIDDEN_V4, ...FORBIDDEN_V6.map((a) => `[${a}]`), ATTACKER];

const PAGE = `<!doctype html><body><script>
const seen = { secure: String(isSecureContext), webTransport: typeof WebTransport,
  transports: "pending" };
const attempts = ${JSON.stringify(TARGETS)}.map((host) => {
  try {
    return new WebTransport("https://" + host + ":443/x").ready
      .then(() => "open", (e) => "refused " + e.name);
  } catch (e) { return Promise.resolve("threw " + e.name); }
});
Promise.all(attempts).then((r) => seen.transports = r.join(","));
navigator.serviceWorker.register("/sw.js").then(() => seen.sw = "registered",
  (e) => seen.sw = "refused " + e.name);
setTimeout(() => fetch("/seen", { method: "POST", body: JSON.stringify(seen) }), 3000);
</script>`;

/** A self-signed certificate for 1.2.3.4 (openssl), as PEM strings. */
async function certificate(): Promise<{ cert: string; key: string }> {
  const dir = await Deno.makeTempDir();
  try {
    const out = await new Deno.Command("openssl", {
      args: [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "1",
        "-subj",
        `/CN=${ATTACKER}`,
        "-addext",
        `subjectAltName=IP:${ATTACKER}`,
        "-keyout",
        `${dir}/key.pem`,
        "-out",
        `${dir}/cert.pem`,
      ],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
    return {
      cert: await Deno.readTextFile(`${dir}/cert.pem`),
      key: await Deno.readTextFile(`${dir}/key.pem`),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function main() {
  setUpNetwork();
  const canaries = startCanaries();
  const positive = await positiveControl(canaries);
  let seen: string | null = null;
  const site = Deno.serve(
    { hostname: ATTACKER, port: 443, ...await certificate(), onListen() {} },
    async (request) => {
      const path = new URL(request.url).pathname;
      if (path === "/seen") seen = await request.text();
      if (path === "/sw.js") {
        return new Response(SERVICE_WORKER, { headers: { "content-type": "text/javascript" } });
      }
      return new Response(PAGE, { headers: { "content-type": "text/html" } });
    },
  );
  try {
    await withCapturePage(async (page) => {
      await lockDownPage(page);
      const cdp = await page.createCDPSession();
      await cdp.send("Security.setIgnoreCertificateErrors", { ignore: true });
      await page.goto(`https://${ATTACKER}/`, { waitUntil: "load" });
      await new Promise((r) => setTimeout(r, ATTEMPT_MS));
    });
  } finally {
    await site.shutdown();
  }
  const contacts = canaries.take();
  canaries.close();
  console.log(JSON.stringify({ positiveControl: positive, seen, contacts }));
}

if (import.meta.main) await main();
