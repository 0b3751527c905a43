/**
 * The Inter subsets the frame draws its text in (the browser bar's title and host initial),
 * bundled into the server as bytes and also served to the editor under their file names.
 */
import CYRILLIC_EXT from "@fontsource/inter/files/inter-cyrillic-ext-400-normal.woff" with {
  type: "bytes",
};
import CYRILLIC from "@fontsource/inter/files/inter-cyrillic-400-normal.woff" with {
  type: "bytes",
};
import GREEK_EXT from "@fontsource/inter/files/inter-greek-ext-400-normal.woff" with {
  type: "bytes",
};
import GREEK from "@fontsource/inter/files/inter-greek-400-normal.woff" with { type: "bytes" };
import LATIN_EXT from "@fontsource/inter/files/inter-latin-ext-400-normal.woff" with {
  type: "bytes",
};
import LATIN from "@fontsource/inter/files/inter-latin-400-normal.woff" with { type: "bytes" };
import VIETNAMESE from "@fontsource/inter/files/inter-vietnamese-400-normal.woff" with {
  type: "bytes",
};
import { type FontStack, fontStack, loadFont } from "./font.js";

/** Inter's subsets in fallback order (Latin first: its .notdef stands for what none has). */
export const FRAME_FONT_FILES: ReadonlyArray<{ name: string; bytes: Uint8Array }> = [
  { name: "inter-latin-400.woff", bytes: LATIN },
  { name: "inter-latin-ext-400.woff", bytes: LATIN_EXT },
  { name: "inter-cyrillic-400.woff", bytes: CYRILLIC },
  { name: "inter-cyrillic-ext-400.woff", bytes: CYRILLIC_EXT },
  { name: "inter-greek-400.woff", bytes: GREEK },
  { name: "inter-greek-ext-400.woff", bytes: GREEK_EXT },
  { name: "inter-vietnamese-400.woff", bytes: VIETNAMESE },
];

let loaded: Promise<FontStack> | undefined;

/** The frame's font stack, parsed once per process. */
export function loadFrameFonts(): Promise<FontStack> {
  loaded ??= Promise.all(FRAME_FONT_FILES.map((file) => loadFont(file.bytes))).then(fontStack);
  return loaded;
}
