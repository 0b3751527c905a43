/**
 * Cache writes of one key land in the order of their renders: a write waits for the key's write
 * still running, so a slow write of an older image can never land after a newer one. Answers go
 * out before their write, so shutdown waits for `settled()` before it closes the store.
 */

export interface OrderedWrites {
  /** Runs `write` after the key's earlier writes ended (landed or failed); resolves when it did. */
  write(key: string, write: () => Promise<void>): Promise<void>;
  /** Resolves once every write started so far has landed or failed. */
  settled(): Promise<void>;
}

/** One chain of writes per key, forgotten once the key's last write ends. */
export function createOrderedWrites(): OrderedWrites {
  const latest = new Map<string, Promise<void>>();
  return {
    async write(key, write) {
      const before = latest.get(key);
      const chained = (async () => {
        await before?.catch(() => {});
        await write();
      })();
      latest.set(key, chained);
      try {
        await chained;
      } finally {
        if (latest.get(key) === chained) latest.delete(key);
      }
    },
    async settled() {
      // A write chains on the key's previous one, so the latest per key covers them all.
      while (latest.size > 0) await Promise.allSettled([...latest.values()]);
    },
  };
}
