/**
 * Network namespaces for boundary tests: a test file re-runs itself under `unshare -n` (root
 * only), where the "public" and forbidden addresses it needs are added to a veth pair
 * that exists only in that namespace, so no packet can leave it. Canaries listen on the
 * forbidden addresses (TCP and UDP) and record every contact.
 */
import dgram from "node:dgram";

/** Why namespace tests cannot run here, or null when they can. */
export function netnsUnavailable(): string | null {
  if (Deno.build.os !== "linux") return "network namespaces exist on Linux only";
  try {
    const probe = new Deno.Command("unshare", { args: ["-n", "ip", "link", "set", "lo", "up"] })
      .outputSync();
    if (probe.success) return null;
    return `"unshare -n" is not allowed here (root or CAP_SYS_ADMIN needed): ` +
      new TextDecoder().decode(probe.stderr).trim();
  } catch (error) {
    return `unshare or ip is missing (apt-get install util-linux iproute2): ${error}`;
  }
}

/** Runs `deno test` on `file` inside a new, empty network namespace; exit code and output. */
export async function testInNewNetns(
  file: string,
): Promise<{ code: number; output: string }> {
  const { code, stdout, stderr } = await new Deno.Command("unshare", {
    args: ["-n", Deno.execPath(), "test", "-A", "--no-check", file],
    cwd: new URL("../", import.meta.url).pathname,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code, output: text(stdout) + text(stderr) };
}

/**
 * Refuses to go on unless this process runs in a network namespace of its own (not the host's),
 * then brings loopback up and puts `addresses` on a veth pair whose both ends stay in the
 * namespace: nothing below touches the host's network. (On loopback alone, Chromium's WebRTC
 * finds no interface to gather candidates on and sends nothing, which would prove nothing.)
 */
export async function isolatedAddresses(addresses: string[]): Promise<void> {
  const [ours, host] = await Promise.all(
    ["/proc/self/ns/net", "/proc/1/ns/net"].map((p) => Deno.readLink(p).catch(() => p)),
  );
  if (ours === host) throw new Error("not inside a private network namespace: refusing to run");
  const links = await ip("-o", "link", "show");
  if (links.trim().split("\n").some((line) => !/^\d+: lo:/.test(line))) {
    throw new Error(`the namespace has interfaces besides lo: ${links}`);
  }
  // No IPv6 duplicate address detection: its late state change reads as a network change to
  // Chromium, which then fails the navigation in flight (ERR_NETWORK_CHANGED).
  for (const scope of ["all", "default"]) {
    await Deno.writeTextFile(`/proc/sys/net/ipv6/conf/${scope}/accept_dad`, "0").catch(() => {});
  }
  await ip("link", "set", "lo", "up");
  await ip("link", "add", "shotline0", "type", "veth", "peer", "name", "shotline1");
  for (const address of addresses) await ip("addr", "add", `${address}/32`, "dev", "shotline0");
  await ip("link", "set", "shotline0", "up");
  await ip("link", "set", "shotline1", "up");
}

async function ip(...args: string[]): Promise<string> {
  const { success, stdout, stderr } = await new Deno.Command("ip", { args }).output();
  if (!success) throw new Error(`ip ${args.join(" ")}: ${new TextDecoder().decode(stderr)}`);
  return new TextDecoder().decode(stdout);
}

export interface Contact {
  proto: "tcp" | "udp";
  address: string;
  port: number;
}

export interface Canaries {
  /** Every contact since the last `take()`. */
  take(): Contact[];
  close(): Promise<void>;
}

/** TCP and UDP listeners on every address × port; each connection or datagram is a contact. */
export async function startCanaries(
  options: { addresses: string[]; tcpPorts: number[]; udpPorts: number[] },
): Promise<Canaries> {
  let contacts: Contact[] = [];
  const listeners: Deno.Listener[] = [];
  const sockets: dgram.Socket[] = [];
  for (const address of options.addresses) {
    for (const port of options.tcpPorts) {
      const listener = Deno.listen({ hostname: address, port });
      listeners.push(listener);
      (async () => {
        for await (const conn of listener) {
          contacts.push({ proto: "tcp", address, port });
          conn.close();
        }
      })().catch(() => {});
    }
    for (const port of options.udpPorts) {
      const socket = dgram.createSocket(address.includes(":") ? "udp6" : "udp4");
      socket.on("message", () => contacts.push({ proto: "udp", address, port }));
      await new Promise<void>((resolve, reject) => {
        socket.once("error", reject);
        socket.bind(port, address, () => resolve());
      });
      sockets.push(socket);
    }
  }
  return {
    take() {
      const taken = contacts;
      contacts = [];
      return taken;
    },
    async close() {
      for (const listener of listeners) listener.close();
      await Promise.all(sockets.map((s) => new Promise<void>((resolve) => s.close(resolve))));
    },
  };
}

/** One UDP datagram and one TCP connection to every canary (the positive control). */
export async function touchCanaries(
  options: { addresses: string[]; tcpPorts: number[]; udpPorts: number[] },
): Promise<void> {
  for (const address of options.addresses) {
    for (const port of options.tcpPorts) (await Deno.connect({ hostname: address, port })).close();
    for (const port of options.udpPorts) {
      const socket = dgram.createSocket(address.includes(":") ? "udp6" : "udp4");
      await new Promise<void>((resolve, reject) =>
        socket.send("canary", port, address, (error) => error ? reject(error) : resolve())
      );
      await new Promise<void>((resolve) => socket.close(resolve));
    }
  }
}
