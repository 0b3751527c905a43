import { createWasmExporter } from "../../lib/codecs/exporter.ts";
import { exporterContract } from "./contract.ts";

// The portable path, in its Worker pool as production runs it.
exporterContract("wasm exporter", async () => {
  const exporter = createWasmExporter();
  await exporter.warm();
  return exporter;
});
