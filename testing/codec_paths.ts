/**
 * The exporter's codec paths a test runs on: the wasm one always, sharp's (libvips) when it
 * loads here, each as a name and a factory of a one-slot exporter.
 */
import {
  createSharpExporter,
  createWasmExporter,
  type ImageExporter,
} from "../lib/codecs/exporter.ts";
import { loadSharp } from "../lib/codecs/sharp.ts";

export type CodecPath = [name: string, exporter: () => Promise<ImageExporter>];

/** The paths, wasm first. */
export async function codecPaths(): Promise<CodecPath[]> {
  const paths: CodecPath[] = [["wasm", () => Promise.resolve(createWasmExporter({ slots: 1 }))]];
  if ("sharp" in await loadSharp()) {
    paths.push(["sharp", async () => {
      const created = await createSharpExporter({ slots: 1 });
      if (!("exporter" in created)) throw new Error(created.reason);
      return created.exporter;
    }]);
  }
  return paths;
}
