import { createKvStore } from "../lib/store/deno_kv.ts";
import type { Store } from "../lib/store/store.ts";
import type { Clock } from "../lib/clock.ts";
import { createUpstashStore } from "../lib/store/upstash_redis.ts";
import { startRedisServer } from "./redis_server.ts";
import { startUpstashGateway, type UpstashGateway } from "./upstash_gateway.ts";
import type { RedisServer } from "./redis_server.ts";

/** Bytes that do not compress and differ per seed, like a PNG. */
export function noise(size: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let x = seed * 2654435761 + 1;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  return bytes;
}

/**
 * A clock tests move by hand (same as helpers/app.ts `manualClock`, repeated here so the store
 * tests do not type-check the whole app).
 */
export function storeClock(start = Date.UTC(2026, 0, 1)): Clock & { advance(ms: number): void } {
  let now = start;
  return { now: () => now, advance: (ms) => void (now += ms) };
}

/** A store under test plus everything it needs; disposing it releases all of that. */
export interface OpenedStore extends AsyncDisposable {
  store: Store;
}

export interface StoreBackend {
  name: string;
  open(clock: Clock): Promise<OpenedStore>;
}

/** Redis behind the Upstash gateway fixture, with handles for outage tests. */
export interface RedisStack extends OpenedStore {
  server: RedisServer;
  gateway: UpstashGateway;
}

// Below the real 10 MB, so a store that forgot to chunk a 3 MB blob (4 MB as base64) fails.
const TEST_MAX_REQUEST_BYTES = 2 * 1024 * 1024;

/** Starts redis-server, the REST gateway in front of it and an Upstash store on top. */
export async function openRedisStack(
  clock: Clock,
  timeouts: { timeoutMs?: number; bulkTimeoutMs?: number } = {},
): Promise<RedisStack> {
  const server = await startRedisServer();
  const gateway = startUpstashGateway({
    redisPort: server.port,
    maxRequestBytes: TEST_MAX_REQUEST_BYTES,
  });
  const store = createUpstashStore({ url: gateway.url, token: gateway.token, clock, ...timeouts });
  return {
    store,
    server,
    gateway,
    async [Symbol.asyncDispose]() {
      await store.close();
      await gateway.close();
      await server[Symbol.asyncDispose]();
    },
  };
}

/** Every backend the shared contract suite runs against. */
export const STORE_BACKENDS: StoreBackend[] = [
  {
    name: "deno-kv :memory:",
    async open(clock) {
      const store = createKvStore(await Deno.openKv(":memory:"), clock);
      return { store, [Symbol.asyncDispose]: () => store.close() };
    },
  },
  {
    name: "deno-kv file",
    async open(clock) {
      const dir = await Deno.makeTempDir({ prefix: "shotline_kv_" });
      const store = createKvStore(await Deno.openKv(`${dir}/store.sqlite3`), clock);
      return {
        store,
        async [Symbol.asyncDispose]() {
          await store.close();
          await Deno.remove(dir, { recursive: true });
        },
      };
    },
  },
  { name: "upstash-redis via REST gateway", open: (clock) => openRedisStack(clock) },
];
