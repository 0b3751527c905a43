/**
 * A throwaway certificate authority and one server certificate for the given host names, made
 * with the openssl command line, so a real process (DENO_CERT) can be sent to loopback servers
 * that impersonate HTTPS hosts. Nothing is kept: the files live in a temporary directory.
 */
import type { TestTls } from "../fixtures/tls_syndication.ts";

/** Runs `openssl <command>` in `dir`; the command is split on whitespace (no quoting needed). */
async function openssl(dir: string, command: string): Promise<void> {
  const args = command.trim().split(/\s+/);
  const { code, stderr } = await new Deno.Command("openssl", { args, cwd: dir, stderr: "piped" })
    .output();
  if (code !== 0) throw new Error(`openssl ${args[0]} failed: ${new TextDecoder().decode(stderr)}`);
}

/** A CA and a certificate for `hosts` signed by it (PEM), valid for one day. */
export async function makeTestTls(hosts: string[]): Promise<TestTls> {
  const dir = await Deno.makeTempDir({ prefix: "shotline_test_tls_" });
  try {
    const san = hosts.map((host) => `DNS:${host}`).join(",");
    const ca = "-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign";
    await openssl(
      dir,
      `req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=shotline-test-CA
      -keyout ca.key -out ca.pem ${ca}`,
    );
    await openssl(
      dir,
      `req -newkey rsa:2048 -nodes -subj /CN=${hosts[0]}
      -keyout server.key -out server.csr`,
    );
    await Deno.writeTextFile(`${dir}/ext.cnf`, `subjectAltName=${san}\n`);
    await openssl(
      dir,
      `x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1
      -out server.pem -extfile ext.cnf`,
    );
    const read = (name: string) => Deno.readTextFile(`${dir}/${name}`);
    return {
      cert: await read("server.pem"),
      key: await read("server.key"),
      caCert: await read("ca.pem"),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
