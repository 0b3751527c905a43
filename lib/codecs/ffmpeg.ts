/**
 * The ffmpeg binary the recordings are encoded with (FFMPEG_PATH; "ffmpeg" on PATH by default):
 * whether it runs at all, and which of the encoders a recording needs it was built with, probed
 * once per path and kept.
 */

/** The ffmpeg encoders a recording format needs. */
export const VIDEO_CODECS = ["libx264", "libvpx-vp9", "gif"] as const;
export type VideoCodec = typeof VIDEO_CODECS[number];

/** What one ffmpeg binary can do: not there at all, or the codecs it has. */
export type FfmpegProbe =
  | { found: false; reason: string }
  | { found: true; codecs: ReadonlySet<VideoCodec> };

// A binary that does not list its encoders within this long is treated as absent.
const PROBE_TIMEOUT_MS = 10_000;

const probes = new Map<string, Promise<FfmpegProbe>>();

/** What `path` can encode: probed once (`-hide_banner -encoders`), then answered from memory. */
export function probeFfmpeg(path: string): Promise<FfmpegProbe> {
  let probe = probes.get(path);
  if (!probe) {
    probe = runProbe(path);
    probes.set(path, probe);
  }
  return probe;
}

async function runProbe(path: string): Promise<FfmpegProbe> {
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command(path, {
      args: ["-hide_banner", "-encoders"],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    }).output();
  } catch (error) {
    return { found: false, reason: error instanceof Error ? error.message : String(error) };
  }
  if (!output.success) return { found: false, reason: `exit code ${output.code}` };
  return { found: true, codecs: encodersListed(new TextDecoder().decode(output.stdout)) };
}

/** The recording codecs among the lines of `ffmpeg -encoders` (" V....D libx264  ..."). */
export function encodersListed(listing: string): Set<VideoCodec> {
  const names = new Set<string>();
  for (const line of listing.split("\n")) {
    const match = /^\s*V[.A-Z]{5}\s+(\S+)/.exec(line);
    if (match) names.add(match[1]);
  }
  return new Set(VIDEO_CODECS.filter((codec) => names.has(codec)));
}
