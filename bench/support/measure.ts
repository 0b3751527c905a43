/**
 * What every bench reads its figures with: medians and quantiles of samples, and the memory, CPU
 * and load figures of processes from /proc (Linux only; a process that exits while it is read
 * counts as zero).
 */

/** The median (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The sample below which the fraction `q` of the samples lie (nearest rank, e.g. 0.95 for p95). */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/**
 * The sum of `fields` (kB lines such as `VmRSS` of `status` or `Private_Dirty` of
 * `smaps_rollup`) in /proc/<pid>/<file>, in bytes.
 */
export function procBytes(pid: number, file: string, ...fields: string[]): number {
  let text: string;
  try {
    text = Deno.readTextFileSync(`/proc/${pid}/${file}`);
  } catch {
    return 0; // the process exited meanwhile
  }
  let kb = 0;
  for (const field of fields) {
    kb += Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0);
  }
  return kb * 1024;
}

/** The resident set size of one process, in bytes. */
export function rssOf(pid: number): number {
  return procBytes(pid, "status", "VmRSS");
}

/** User + system CPU seconds the process has used so far (at 100 clock ticks a second). */
export function cpuSecondsOf(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Every process below `root` (for Chromium: zygotes, GPU, utility and renderer processes). */
export function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...children.get(ppid) ?? [], Number(entry.name)]);
    } catch {
      // exited while we listed
    }
  }
  const found: number[] = [];
  const stack = [...(children.get(root) ?? [])];
  while (stack.length) {
    const pid = stack.pop()!;
    found.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return found;
}

/** The 1, 5 and 15 minute load averages, as printed beside every figure. */
export function loadAverage(): string {
  return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
}
