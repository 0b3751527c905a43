/**
 * Proxy, side by side (part of `deno task bench:peers`): a 200 MB video and a 1 MB image from
 * one local upstream (testing/tls_media_hosts.ts), fetched directly, through this service's
 * /api/image-proxy (bench/support/proxy_server.ts: the app with its media origin pointed at that
 * upstream) and through nginx (apt) as a plain reverse proxy to the same upstream. The
 * downloads and their rounds are bench/proxy.ts's, so both benches measure throughput one way.
 */
import { freePort } from "../load/service.ts";
import { spawnJsonChild } from "../../testing/json_child.ts";
import { MEDIA_KB, type UpstreamInfo } from "../../testing/tls_media_hosts.ts";
import { median } from "../support/measure.ts";
import { download, interleavedRounds, mbps } from "../proxy.ts";

const BIG_MB = 200;
const NGINX = "/usr/sbin/nginx";

/**
 * nginx as a child process: temp config, pid, logs and temp paths in `dir`, `daemon off;`.
 * `buffering: false` adds `proxy_buffering off;`, the usual tweak for large media.
 */
async function startNginx(upstreamPort: number, dir: string, buffering: boolean) {
  const port = freePort();
  // What a user writes for "a reverse proxy": defaults kept (proxy buffering on, access log on).
  const config = `daemon off;
worker_processes auto;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream media { server 127.0.0.1:${upstreamPort}; keepalive 16; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://media;
      proxy_http_version 1.1;
      proxy_set_header Connection "";${buffering ? "" : "\n      proxy_buffering off;"}
    }
  }
}
`;
  await Deno.writeTextFile(`${dir}/nginx.conf`, config);
  // Started as root, nginx's workers run as nobody: they must reach the temp paths in `dir`.
  await Deno.chmod(dir, 0o755);
  const child = new Deno.Command(NGINX, {
    args: ["-p", dir, "-e", `${dir}/error.log`, "-c", `${dir}/nginx.conf`],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const origin = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      await (await fetch(`${origin}/media/probe.jpg`)).arrayBuffer();
      return {
        origin,
        async stop() {
          child.kill("SIGQUIT"); // graceful: workers finish, then the master exits
          await child.status;
          await child.stderr.cancel().catch(() => {});
        },
      };
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  child.kill("SIGKILL");
  const { stderr } = await child.output();
  throw new Error(`nginx did not start: ${new TextDecoder().decode(stderr).trim()}`);
}

/** The proxy comparison; returns the Markdown table, or why nginx could not run. */
export async function proxySideBySide(rounds: number, smallRuns: number): Promise<string> {
  try {
    await Deno.stat(NGINX);
  } catch {
    return `nginx is not installed (${NGINX} missing): \`apt-get install -y nginx\` adds it.`;
  }
  const dirs = [
    await Deno.makeTempDir({ prefix: "shotline-nginx-" }),
    await Deno.makeTempDir({ prefix: "shotline-nginx-" }),
  ];
  const upstream = await spawnJsonChild<UpstreamInfo>("testing/tls_media_hosts.ts");
  const upstreamOrigin = `http://127.0.0.1:${upstream.info.pagesPort}`;
  const service = await spawnJsonChild<{ port: number }>("bench/support/proxy_server.ts", {
    args: ["service", upstreamOrigin],
  });
  const nginx: Awaited<ReturnType<typeof startNginx>>[] = [];
  try {
    nginx.push(await startNginx(upstream.info.pagesPort, dirs[0], true));
    nginx.push(await startNginx(upstream.info.pagesPort, dirs[1], false));
    const ours = `http://127.0.0.1:${service.info.port}/api/image-proxy?url=`;
    const paths = (path: string): Record<string, string> => ({
      direct: upstreamOrigin + path,
      service: ours + encodeURIComponent(`https://video.twimg.com${path}`),
      nginx: nginx[0].origin + path,
      nginxUnbuffered: nginx[1].origin + path,
    });
    const big = paths(`/media/bench.mp4?mb=${BIG_MB}`);
    const small = paths("/media/photo.jpg");
    // Warm-up: connection pools, JIT, nginx workers.
    for (const name of Object.keys(big)) {
      await download(paths("/media/bench.mp4?mb=20")[name]);
      for (let i = 0; i < 5; i++) await download(small[name]);
    }
    const bigResults = await interleavedRounds(big, { rounds, bytes: BIG_MB * 2 ** 20 });
    const smallResults = await interleavedRounds(small, {
      rounds: smallRuns,
      bytes: MEDIA_KB * 1024,
    });
    const stat = (name: string) => ({
      mbps: median(bigResults[name].map(mbps)),
      bigTtfb: median(bigResults[name].map((x) => x.ttfb)),
      smallMs: median(smallResults[name].map((x) => x.ms)),
      smallTtfb: median(smallResults[name].map((x) => x.ttfb)),
    });
    const s = {
      direct: stat("direct"),
      service: stat("service"),
      nginx: stat("nginx"),
      unbuffered: stat("nginxUnbuffered"),
    };
    const line = (label: string, pick: (x: typeof s.direct) => number, digits: number) =>
      `| ${label} | ${pick(s.direct).toFixed(digits)} | ${pick(s.service).toFixed(digits)} | ` +
      `${pick(s.nginx).toFixed(digits)} | ${pick(s.unbuffered).toFixed(digits)} | ` +
      `${(pick(s.service) / pick(s.direct)).toFixed(2)}x | ` +
      `${(pick(s.service) / pick(s.nginx)).toFixed(2)}x | ` +
      `${(pick(s.service) / pick(s.unbuffered)).toFixed(2)}x |`;
    return [
      `Medians: ${rounds} rounds of the ${BIG_MB} MB video/mp4 and ${smallRuns} sequential ` +
      "requests of the 1 MB image/jpeg per path, interleaved; one client, keep-alive.",
      "",
      "| measure | direct | /api/image-proxy | nginx (defaults) | nginx, proxy_buffering off | " +
      "service / direct | service / nginx | service / nginx unbuffered |",
      "|---|---:|---:|---:|---:|---:|---:|---:|",
      line(`${BIG_MB} MB throughput, MB/s`, (x) => x.mbps, 0),
      line(`${BIG_MB} MB time to first byte, ms`, (x) => x.bigTtfb, 2),
      line("1 MB image, total ms", (x) => x.smallMs, 2),
      line("1 MB image, time to first byte, ms", (x) => x.smallTtfb, 2),
    ].join("\n");
  } finally {
    for (const server of nginx) await server.stop();
    await service.stop();
    await upstream.stop();
    for (const dir of dirs) await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
