/**
 * A job too heavy for the request thread and too rare to keep a Worker warm for (a page's
 * scale-down, a capture cut into tiles): one fresh Worker per job, ended when it answers.
 */

/** Posts `request` (its `transfer` buffers handed over) to a new Worker of `url`; its answer. */
export async function runInWorker<Reply extends object>(
  url: URL,
  request: unknown,
  transfer: Transferable[],
): Promise<Exclude<Reply, { error: string }>> {
  const worker = new Worker(url.href, { type: "module" });
  try {
    const reply = new Promise<Reply | { error: string }>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<Reply | { error: string }>) => resolve(event.data);
      worker.onerror = (event) => {
        event.preventDefault();
        reject(new Error(`worker failed: ${event.message}`));
      };
    });
    worker.postMessage(request, transfer);
    const answer = await reply;
    if ("error" in answer) throw new Error(answer.error);
    return answer as Exclude<Reply, { error: string }>;
  } finally {
    worker.terminate();
  }
}
