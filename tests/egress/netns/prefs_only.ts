/**
 * The first WebRTC layer alone, inside the namespace of netns_boundary_e2e_test.ts: the local
 * backend's browser host (profile preferences, launch flags) behind the egress proxy, one
 * context like a capture's, but WITHOUT the page lockdown, so the page keeps RTCPeerConnection.
 * Prints the contacts and what the page's WebRTC calls answered as its last stdout line.
 */
import { withCapturePage } from "./browser_page.ts";
import { positiveControl, setUpNetwork, startCanaries } from "./inner.ts";
import { CANDIDATES, STUN, turn, WEBRTC } from "./vectors.ts";

// ICE keeps trying for a while; this covers gathering, checks and TURN allocation retries.
const GATHER_MS = 4_000;

async function main() {
  setUpNetwork();
  const canaries = startCanaries();
  const positive = await positiveControl(canaries);
  const answered = await withCapturePage(async (page) => {
    const result = await page.evaluate(
      `Promise.all([
        (${WEBRTC})(window, ${JSON.stringify([...STUN, ...turn("udp"), ...turn("tcp")])}, []),
        (${WEBRTC})(window, [], ${JSON.stringify(CANDIDATES)}),
      ])`,
    );
    await new Promise((r) => setTimeout(r, GATHER_MS));
    return result;
  });
  const contacts = canaries.take();
  canaries.close();
  console.log(JSON.stringify({ positiveControl: positive, answered, contacts }));
}

if (import.meta.main) await main();
