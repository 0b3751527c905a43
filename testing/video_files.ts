/**
 * Reading recordings back for tests and benches with the distribution's ffprobe and ffmpeg: the
 * stream's codec, size, pixel format, frame count and duration; one decoded frame as PNG; the
 * order of an MP4's top-level boxes; the largest gap between frames that differ.
 */

export interface VideoFacts {
  codec: string;
  width: number;
  height: number;
  pixFmt: string;
  frames: number;
  durationS: number;
}

/** Writes `bytes` to a temporary file for `use`, removed afterwards. */
async function withFile<T>(bytes: Uint8Array, use: (path: string) => Promise<T>): Promise<T> {
  const path = await Deno.makeTempFile({ prefix: "shotline-video-" });
  try {
    await Deno.writeFile(path, bytes);
    return await use(path);
  } finally {
    await Deno.remove(path).catch(() => {});
  }
}

async function run(command: string, args: string[]): Promise<Uint8Array> {
  const output = await new Deno.Command(command, { args, stdin: "null" }).output();
  if (!output.success) {
    throw new Error(`${command} failed: ${new TextDecoder().decode(output.stderr).slice(-500)}`);
  }
  return output.stdout;
}

/** The first video stream's facts, frames counted by decoding. */
export function probeVideo(bytes: Uint8Array): Promise<VideoFacts> {
  return withFile(bytes, async (path) => {
    const out = await run("ffprobe", [
      ...["-v", "error", "-select_streams", "v:0", "-count_frames"],
      ...["-show_entries", "stream=codec_name,width,height,pix_fmt,nb_read_frames:format=duration"],
      ...["-of", "json", path],
    ]);
    const json = JSON.parse(new TextDecoder().decode(out));
    const stream = json.streams[0];
    return {
      codec: stream.codec_name,
      width: stream.width,
      height: stream.height,
      pixFmt: stream.pix_fmt,
      frames: Number(stream.nb_read_frames),
      durationS: Number(json.format.duration),
    };
  });
}

/** Frame `index` (from 0) decoded to an RGB PNG. */
export function framePng(bytes: Uint8Array, index: number): Promise<Uint8Array> {
  return withFile(bytes, (path) =>
    run("ffmpeg", [
      ...["-v", "error", "-i", path, "-vf", `select=eq(n\\,${index})`, "-frames:v", "1"],
      ...["-pix_fmt", "rgb24", "-f", "image2pipe", "-c:v", "png", "pipe:1"],
    ]));
}

/** The types of an MP4's top-level boxes in file order ("ftyp", "moov", "mdat", ...). */
export function mp4Boxes(bytes: Uint8Array): string[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const boxes: string[] = [];
  for (let at = 0; at + 8 <= bytes.length;) {
    let size = view.getUint32(at);
    if (size === 1) size = Number(view.getBigUint64(at + 8));
    boxes.push(new TextDecoder().decode(bytes.subarray(at + 4, at + 8)));
    if (size < 8) break;
    at += size;
  }
  return boxes;
}

/**
 * The presentation times (s) of the frames that differ from the one before (ffmpeg's mpdecimate
 * with thresholds low enough that any scroll counts), for the largest gap between distinct
 * frames.
 */
export function distinctFrameTimes(bytes: Uint8Array): Promise<number[]> {
  return withFile(bytes, async (path) => {
    const out = await run("ffprobe", [
      ...["-v", "error", "-f", "lavfi"],
      `movie=${path},mpdecimate=hi=64:lo=32:frac=0.001:max=0`,
      ...["-show_entries", "frame=pts_time", "-of", "csv=p=0"],
    ]);
    return new TextDecoder().decode(out).split("\n").filter((line) => line.trim() !== "")
      .map(Number);
  });
}
