/**
 * Recordings encoded by ffmpeg as the frames are taken: each JPEG frame is piped into one ffmpeg
 * process's stdin (`-f image2pipe`, timestamps i/fps), so encoding overlaps shooting. H.264 MP4
 * (yuv420p, moov atom first so it plays while it downloads), VP9 WebM, or a GIF with one palette
 * built from every frame. The child processes are always reaped: finish waits for them, abort
 * kills them, and the temporary files go with them.
 */
import type { VideoFormat } from "../capture/request/output.ts";
import { probeFfmpeg, type VideoCodec } from "./ffmpeg.ts";
import { concatBytes } from "../bytes.ts";

/** One recording's encoder: frames in order, then the file. */
export interface VideoEncoder {
  /** Hands ffmpeg the next frame (a JPEG); waits while ffmpeg is behind. */
  write(frame: Uint8Array): Promise<void>;
  /** Ends the input and returns the encoded file; rejects with VideoEncodeError. */
  finish(): Promise<Uint8Array>;
  /** Kills ffmpeg and drops what it made; safe to call at any time, more than once. */
  abort(): void;
  /** Resolves once every ffmpeg process of this encoder exited and its files are gone. */
  readonly closed: Promise<void>;
}

/** An encoder, or the exact name of what is missing: "ffmpeg" itself, or one of its encoders. */
export type EncoderLookup = { encoder: VideoEncoder } | { missing: "ffmpeg" | VideoCodec };

export interface VideoEncoders {
  /** What `format` lacks here (null when it can be encoded); probes ffmpeg once. */
  missing(format: VideoFormat): Promise<"ffmpeg" | VideoCodec | null>;
  /**
   * Starts an encoder for one recording of `fps` frames a second; the frame size in device px,
   * when known, sets VP9's bitrate cap.
   */
  encoderFor(
    format: VideoFormat,
    options: { fps: number; width?: number; height?: number },
  ): Promise<EncoderLookup>;
}

/** ffmpeg failed to encode; `stderr` is the end of what it said (for the logs, never the client). */
export class VideoEncodeError extends Error {
  constructor(message: string, readonly stderr: string) {
    super(message);
    this.name = "VideoEncodeError";
  }
}

/** The encoder each format needs. */
export const CODEC_OF: Record<VideoFormat, VideoCodec> = {
  mp4: "libx264",
  webm: "libvpx-vp9",
  gif: "gif",
};

// Settings measured on 2 cores (bench/recording.ts, 180 frames of 1280x720 on a loaded machine):
// x264 faster took 12 ms a frame (veryfast 9, medium 16) and made the smallest file of the three;
// any of them keeps well ahead of Chromium shooting the next frame. VP9 only keeps up at realtime
// speed (cpu-used 8: 14 ms a frame; "good" took 39), where constant quality alone is ignored
// (3.4 MB for 6 s): constrained quality with a bitrate cap of 0.072 bits per pixel (2 Mbit/s at
// 720p30) gave 1.0 MB. Two threads each, as the machine has two cores.
const X264 = ["-c:v", "libx264", "-preset", "faster", "-crf", "23", "-pix_fmt", "yuv420p"];
const VP9 = ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-row-mt", "1"];
const VP9_QUALITY = 36;
const VP9_BITS_PER_PIXEL = 0.072;
// The cap when the frame size is not known: 720p at 30 fps.
const VP9_DEFAULT_CAP = 2_000_000;
// yuv420p halves the chroma planes: both sides must be even (an odd one loses its last px).
const EVEN = "crop=trunc(iw/2)*2:trunc(ih/2)*2";
// Bayer dithering keeps the still parts of successive frames identical, which GIF stores once
// (diff_mode=rectangle re-codes only the rectangle that changed).
const GIF_PALETTE = "palettegen=stats_mode=diff";
const GIF_USE = "paletteuse=dither=bayer:bayer_scale=4:diff_mode=rectangle";
// What is kept of ffmpeg's stderr for an error: its last lines say what went wrong.
const STDERR_TAIL_BYTES = 4_096;

/** The encoders of the ffmpeg at `ffmpegPath` (FFMPEG_PATH). */
export function createVideoEncoders(options: { ffmpegPath: string }): VideoEncoders {
  const { ffmpegPath } = options;
  async function missing(format: VideoFormat) {
    const probe = await probeFfmpeg(ffmpegPath);
    if (!probe.found) return "ffmpeg" as const;
    return probe.codecs.has(CODEC_OF[format]) ? null : CODEC_OF[format];
  }
  return {
    missing,
    async encoderFor(format, { fps, width, height }) {
      const absent = await missing(format);
      if (absent) return { missing: absent };
      const dir = await Deno.makeTempDir({ prefix: "shotline-recording-" });
      const input = ["-f", "image2pipe", "-framerate", String(fps), "-c:v", "mjpeg"];
      return {
        encoder: format === "gif"
          ? gifEncoder(ffmpegPath, { dir, input })
          : fileEncoder(ffmpegPath, {
            dir,
            args: [
              ...input,
              ...["-i", "pipe:0", "-vf", EVEN, "-threads", "2"],
              ...(format === "mp4"
                ? [...X264, "-movflags", "+faststart"]
                : [...VP9, ...vp9Quality(fps, width, height)]),
            ],
            file: `${dir}/recording.${format}`,
          }),
      };
    },
  };
}

/** VP9's constrained quality: the quality asked for, and the bitrate it may not pass. */
function vp9Quality(fps: number, width?: number, height?: number): string[] {
  const cap = width && height
    ? Math.round(width * height * fps * VP9_BITS_PER_PIXEL)
    : VP9_DEFAULT_CAP;
  return ["-crf", String(VP9_QUALITY), "-b:v", String(cap), "-pix_fmt", "yuv420p"];
}

/**
 * MP4 and WebM go to a file: MP4's moov atom is written in front once the frames are known,
 * and WebM's duration and cues are written back into its header, both of which need seeking.
 */
function fileEncoder(
  ffmpegPath: string,
  job: { dir: string; args: string[]; file: string },
): VideoEncoder {
  const run = spawn(ffmpegPath, [...job.args, "-y", job.file], { stdout: false });
  return encoderOver([run], {
    dir: job.dir,
    write: (frame) => run.write(frame),
    async finish() {
      await run.finish();
      return await Deno.readFile(job.file);
    },
  });
}

/**
 * A GIF in two passes, so no frame is held decoded: while the frames arrive, one ffmpeg builds
 * the palette from all of them and the JPEGs are kept on disk (about 40 kB each); at the end a
 * second one maps them onto it and streams the GIF out.
 */
function gifEncoder(ffmpegPath: string, job: { dir: string; input: string[] }): VideoEncoder {
  const { dir, input } = job;
  const palette = `${dir}/palette.png`;
  const framesPath = `${dir}/frames.mjpeg`;
  const frames = Deno.openSync(framesPath, { write: true, create: true });
  const first = spawn(
    ffmpegPath,
    [...input, "-i", "pipe:0", "-vf", GIF_PALETTE, "-update", "1", "-y", palette],
    { stdout: false },
  );
  const runs = [first];
  return encoderOver(runs, {
    dir,
    onClose: () => closeQuietly(frames),
    async write(frame) {
      await first.write(frame);
      for (let written = 0; written < frame.length;) {
        written += await frames.write(frame.subarray(written));
      }
    },
    async finish() {
      await first.finish();
      closeQuietly(frames);
      const second = spawn(ffmpegPath, [
        ...input,
        ...["-i", framesPath, "-i", palette, "-lavfi", `[0:v][1:v]${GIF_USE}`],
        ...["-f", "gif", "pipe:1"],
      ], { stdout: true, stdin: false });
      runs.push(second);
      return await second.finish();
    },
  });
}

/** The encoder around its processes: one finish, abort at any time, the directory removed. */
function encoderOver(
  runs: FfmpegRun[],
  steps: {
    dir: string;
    write(frame: Uint8Array): Promise<void>;
    finish(): Promise<Uint8Array>;
    onClose?: () => void;
  },
): VideoEncoder {
  let aborted = false;
  const done = Promise.withResolvers<void>();
  const close = async () => {
    steps.onClose?.();
    await Promise.all(runs.map((run) => run.exited));
    await Deno.remove(steps.dir, { recursive: true }).catch(() => {});
    done.resolve();
  };
  return {
    async write(frame) {
      if (aborted) throw new VideoEncodeError("the encoder was aborted", "");
      await steps.write(frame);
    },
    async finish() {
      try {
        if (aborted) throw new VideoEncodeError("the encoder was aborted", "");
        return await steps.finish();
      } catch (error) {
        for (const run of runs) run.kill();
        throw error;
      } finally {
        await close();
      }
    },
    abort() {
      if (aborted) return;
      aborted = true;
      for (const run of runs) run.kill();
      close();
    },
    closed: done.promise,
  };
}

interface FfmpegRun {
  write(frame: Uint8Array): Promise<void>;
  /** Closes stdin, waits for the exit; stdout's bytes (empty without stdout). */
  finish(): Promise<Uint8Array>;
  kill(): void;
  exited: Promise<void>;
}

/** One ffmpeg child with its stderr drained into a bounded tail. */
function spawn(
  ffmpegPath: string,
  args: string[],
  pipes: { stdout: boolean; stdin?: boolean },
): FfmpegRun {
  const child = new Deno.Command(ffmpegPath, {
    args: ["-hide_banner", "-nostdin", "-loglevel", "error", ...args],
    stdin: pipes.stdin === false ? "null" : "piped",
    stdout: pipes.stdout ? "piped" : "null",
    stderr: "piped",
  }).spawn();
  // -nostdin only stops ffmpeg reading keys; `pipe:0` still reads the frames.
  let tail = new Uint8Array(0);
  const stderr = (async () => {
    for await (const chunk of child.stderr) {
      tail = concatBytes([tail, chunk]).slice(-STDERR_TAIL_BYTES);
    }
  })().catch(() => {});
  const stdout = pipes.stdout ? new Response(child.stdout).bytes() : Promise.resolve(null);
  stdout.catch(() => {});
  const writer = pipes.stdin === false ? null : child.stdin.getWriter();
  const exited = child.status.then(() => {}, () => {});
  const failure = async (what: string) => {
    await stderr;
    return new VideoEncodeError(what, new TextDecoder().decode(tail).trim());
  };
  return {
    async write(frame) {
      try {
        await writer!.write(frame);
      } catch {
        await exited;
        throw await failure("ffmpeg stopped reading frames");
      }
    },
    async finish() {
      await writer?.close().catch(() => {});
      const status = await child.status;
      const bytes = await stdout.catch(() => null);
      if (!status.success) {
        throw await failure(`ffmpeg exited with code ${status.code}`);
      }
      return bytes ?? new Uint8Array(0);
    },
    kill() {
      try {
        child.kill("SIGKILL");
      } catch {
        // already exited
      }
    },
    exited,
  };
}

function closeQuietly(file: Deno.FsFile): void {
  try {
    file.close();
  } catch {
    // closed already
  }
}
