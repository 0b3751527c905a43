/**
 * The recording encoder against the distribution's ffmpeg: which encoders it has (and the exact
 * name of what is missing), each format from a few JPEG frames of an odd size, and no ffmpeg left
 * running after an abort or a failure.
 */
import assert from "node:assert/strict";
import { CAN_LIST_PROCESSES, ourFfmpegs } from "../../testing/processes.ts";
import { encodersListed, probeFfmpeg } from "../../lib/codecs/ffmpeg.ts";
import { createVideoEncoders, VideoEncodeError } from "../../lib/codecs/video_encoder.ts";
import { mp4Boxes, probeVideo } from "../../testing/video_files.ts";
import { eventually } from "../../testing/wait.ts";

const FFMPEG = "/usr/bin/ffmpeg";

/** `count` JPEG frames of a moving test pattern, 321x241 (odd on purpose). */
async function jpegFrames(count: number): Promise<Uint8Array[]> {
  const dir = await Deno.makeTempDir({ prefix: "shotline-frames-" });
  try {
    const output = await new Deno.Command(FFMPEG, {
      args: [
        ...["-v", "error", "-f", "lavfi", "-i", "testsrc=size=321x241:rate=10"],
        ...["-frames:v", String(count), `${dir}/%03d.jpg`],
      ],
    }).output();
    assert.ok(output.success, "test frames made");
    return await Promise.all(
      Array.from(
        { length: count },
        (_, i) => Deno.readFile(`${dir}/${String(i + 1).padStart(3, "0")}.jpg`),
      ),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("the encoder listing yields the recording codecs ffmpeg has", () => {
  const listing = [
    "Encoders:",
    " V..... = Video",
    " ------",
    " V....D libx264              libx264 H.264",
    " V..... gif                  GIF (Graphics Interchange Format)",
    " A....D aac                  AAC (Advanced Audio Coding)",
  ].join("\n");
  assert.deepEqual([...encodersListed(listing)].sort(), ["gif", "libx264"]);
});

Deno.test("an ffmpeg path that does not exist is reported as missing ffmpeg", async () => {
  const encoders = createVideoEncoders({ ffmpegPath: "/nonexistent/ffmpeg" });
  assert.equal(await encoders.missing("mp4"), "ffmpeg");
  assert.deepEqual(await encoders.encoderFor("gif", { fps: 10 }), { missing: "ffmpeg" });
  const probe = await probeFfmpeg("/nonexistent/ffmpeg");
  assert.equal(probe.found, false);
});

Deno.test("an ffmpeg without VP9 names libvpx-vp9 as missing and still encodes the rest", async () => {
  const dir = await Deno.makeTempDir({ prefix: "shotline-fake-ffmpeg-" });
  try {
    const fake = `${dir}/ffmpeg`;
    // Lists its encoders without libvpx-vp9; passes everything else to the real one.
    await Deno.writeTextFile(
      fake,
      `#!/bin/sh\nif [ "$2" = "-encoders" ]; then ${FFMPEG} "$@" | grep -v libvpx-vp9; ` +
        `exit 0; fi\nexec ${FFMPEG} "$@"\n`,
    );
    await Deno.chmod(fake, 0o755);
    const encoders = createVideoEncoders({ ffmpegPath: fake });
    assert.equal(await encoders.missing("webm"), "libvpx-vp9");
    assert.deepEqual(await encoders.encoderFor("webm", { fps: 10 }), { missing: "libvpx-vp9" });
    assert.equal(await encoders.missing("mp4"), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "each format is encoded from JPEG frames with even sides where it needs them",
  ignore: !CAN_LIST_PROCESSES,
}, async (t) => {
  const frames = await jpegFrames(12);
  const encoders = createVideoEncoders({ ffmpegPath: FFMPEG });
  const expected = {
    mp4: { codec: "h264", width: 320, height: 240, pixFmt: "yuv420p" },
    webm: { codec: "vp9", width: 320, height: 240, pixFmt: "yuv420p" },
    gif: { codec: "gif", width: 321, height: 241, pixFmt: "bgra" },
  } as const;
  for (const format of ["mp4", "webm", "gif"] as const) {
    await t.step(format, async () => {
      const lookup = await encoders.encoderFor(format, { fps: 10 });
      assert.ok("encoder" in lookup);
      for (const frame of frames) await lookup.encoder.write(frame);
      const bytes = await lookup.encoder.finish();
      await lookup.encoder.closed;
      const facts = await probeVideo(bytes);
      const { codec, width, height, pixFmt } = facts;
      assert.deepEqual({ codec, width, height, pixFmt }, expected[format]);
      assert.equal(facts.frames, 12);
      assert.ok(Math.abs(facts.durationS - 1.2) < 0.15, `1.2 s long, not ${facts.durationS}`);
      if (format === "mp4") {
        const boxes = mp4Boxes(bytes);
        assert.ok(boxes.indexOf("moov") < boxes.indexOf("mdat"), `faststart: ${boxes}`);
      }
    });
  }
  assert.deepEqual(ourFfmpegs(), [], "no ffmpeg left");
});

Deno.test({
  name: "an aborted encoder leaves no ffmpeg running",
  ignore: !CAN_LIST_PROCESSES,
}, async () => {
  const frames = await jpegFrames(3);
  const encoders = createVideoEncoders({ ffmpegPath: FFMPEG });
  for (const format of ["mp4", "gif"] as const) {
    const lookup = await encoders.encoderFor(format, { fps: 10 });
    assert.ok("encoder" in lookup);
    for (const frame of frames) await lookup.encoder.write(frame);
    assert.ok(ourFfmpegs().length > 0, "ffmpeg runs while frames arrive");
    lookup.encoder.abort();
    await lookup.encoder.closed;
    await eventually(() => ourFfmpegs().length === 0, "ffmpeg reaped");
    await assert.rejects(lookup.encoder.finish(), VideoEncodeError);
  }
});

Deno.test({
  name: "frames ffmpeg cannot decode fail with its own words, and it is reaped",
  ignore: !CAN_LIST_PROCESSES,
}, async () => {
  const encoders = createVideoEncoders({ ffmpegPath: FFMPEG });
  const lookup = await encoders.encoderFor("mp4", { fps: 10 });
  assert.ok("encoder" in lookup);
  const garbage = new TextEncoder().encode("not a jpeg at all");
  const failed = await (async () => {
    try {
      await lookup.encoder.write(garbage);
      return await lookup.encoder.finish().then(() => null);
    } catch (error) {
      return error;
    }
  })();
  assert.ok(failed instanceof VideoEncodeError, String(failed));
  await lookup.encoder.closed;
  assert.deepEqual(ourFfmpegs(), []);
});
