/**
 * Proxy variables an operator's environment may hold, at their most hostile for the boundary:
 * NO_PROXY names every loopback spelling and the metadata address (so a client that honours it
 * connects there directly), and HTTP(S)_PROXY and ALL_PROXY name a trap listener (so a client that
 * honours them sends its requests there instead of through the egress proxy).
 */

/** The variables, with HTTP(S)_PROXY at `trapUrl`; lower-case spellings too (clients read both). */
export function hostileProxyEnv(trapUrl: string): Record<string, string> {
  const noProxy = "127.0.0.1,localhost,::1,[::1],169.254.169.254,10.0.0.1,.internal,.test";
  const upper = {
    HTTP_PROXY: trapUrl,
    HTTPS_PROXY: trapUrl,
    ALL_PROXY: trapUrl,
    NO_PROXY: noProxy,
  };
  const lower = Object.fromEntries(Object.entries(upper).map(([k, v]) => [k.toLowerCase(), v]));
  return { ...upper, ...lower };
}

/** Sets `vars` in this process's environment; the returned function puts back what was there. */
export function setEnv(vars: Record<string, string>): () => void {
  const before = Object.fromEntries(Object.keys(vars).map((name) => [name, Deno.env.get(name)]));
  for (const [name, value] of Object.entries(vars)) Deno.env.set(name, value);
  return () => {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
  };
}

/** A TCP listener on loopback that counts the connections it accepts (and closes them). */
export function tcpTrap(hostname = "127.0.0.1", port = 0) {
  const listener = Deno.listen({ hostname, port });
  let contacts = 0;
  (async () => {
    for await (const conn of listener) {
      contacts++;
      conn.close();
    }
  })().catch(() => {});
  return {
    port: listener.addr.port,
    get contacts() {
      return contacts;
    },
    [Symbol.dispose]: () => listener.close(),
  };
}
