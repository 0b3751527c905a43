/**
 * The settle proofs both backends must pass (tests/capture/page/settle_e2e_test.ts for the
 * local one, tests/capture/remote/settle_e2e_test.ts for the remote one): every corpus region right
 * in viewport and full-page captures, the limits (infinite animation, a page that never stops,
 * the blank-frame guard), `settle: false`, and the options on settled pages.
 */
import assert from "node:assert/strict";
import type { CaptureOptions } from "../lib/capture/request/options.ts";
import type { Capturer } from "../lib/capture/types.ts";
import type { LogFields } from "../lib/log.ts";
import { CORPUS, regionsFor, VIEWPORT } from "./settle/corpus.ts";
import { describeWrong, judgeRegions } from "./settle/regions.ts";
import { STATIC_BLOCK } from "./settle/stress_pages.ts";
import { decodePng } from "./capture_fixtures.ts";

export interface SettleHarness {
  capturer: Capturer;
  origin: string;
  /** The capturer's log lines (a memory logger). */
  lines: LogFields[];
  /** The strategy every result must carry. */
  strategy: string;
}

/** Captures `path` and decodes it; a failure to capture fails the step. */
export function shooter(harness: SettleHarness) {
  return async (path: string, options: CaptureOptions = {}) => {
    const result = await harness.capturer.capture({
      url: harness.origin + path,
      deviceType: "desktop",
      colorScheme: "light",
      ...(Object.keys(options).length ? { options } : {}),
    });
    assert.equal(result.strategy, harness.strategy);
    return { result, image: decodePng(result.image) };
  };
}

/** Every corpus page, viewport and full page: each region right, the full page its height. */
export async function corpusSteps(t: Deno.TestContext, harness: SettleHarness): Promise<void> {
  const shoot = shooter(harness);
  for (const corpusPage of CORPUS) {
    await t.step(`${corpusPage.name} (${corpusPage.uses.join(", ")})`, async () => {
      const viewport = await shoot(corpusPage.path);
      assert.deepEqual([viewport.image.width, viewport.image.height], [1920, VIEWPORT.height]);
      const inView = judgeRegions(viewport.image, regionsFor(corpusPage, "viewport"));
      assert.equal(describeWrong(inView), "", "viewport regions");
      const full = await shoot(corpusPage.path, { fullPage: true });
      assert.deepEqual([full.image.width, full.image.height], [1920, corpusPage.height]);
      const all = judgeRegions(full.image, regionsFor(corpusPage, "fullPage"));
      assert.equal(describeWrong(all), "", "full-page regions");
    });
  }
}

/** The limits and the opt-out. */
export async function limitSteps(t: Deno.TestContext, harness: SettleHarness): Promise<void> {
  const shoot = shooter(harness);
  const keyframe = CORPUS.find((p) => p.name === "keyframe")!;
  const hero = keyframe.regions.find((r) => r.name.startsWith("hero block"))!;

  await t.step(
    "settle: false returns the first frame: the keyframe hero still fading",
    async () => {
      const { image } = await shoot(keyframe.path, { settle: false });
      const [result] = judgeRegions(image, [hero]);
      assert.equal(result.ok, false, "the 1.4 s fade-in is caught mid-way");
    },
  );

  await t.step("infinite animations and a page that never settles are shot, no 408", async () => {
    const cases: [string, CaptureOptions][] = [
      ["/infinite", {}],
      ["/infinite", { fullPage: true }],
      ["/never", { fullPage: true }],
    ];
    for (const [path, options] of cases) {
      const { image } = await shoot(path, options);
      assert.equal(describeWrong(judgeRegions(image, [STATIC_BLOCK])), "", path);
    }
  });

  await t.step("blank-frame guard: a page invisible until late data is shot again", async () => {
    harness.lines.length = 0;
    const { image } = await shoot("/blank-late");
    assert.equal(describeWrong(judgeRegions(image, [STATIC_BLOCK])), "");
    assert.ok(
      harness.lines.some((line) => String(line.msg).startsWith("blank frame")),
      "the retry is logged",
    );
  });

  await t.step("options on settled pages: scale, selector, hide, wait, delay", async () => {
    const scaled = await shoot(keyframe.path, {
      scale: 2,
      hideSelectors: [".spinner"],
      waitForSelector: ".rise",
      delayMs: 100,
    });
    assert.deepEqual([scaled.image.width, scaled.image.height], [3840, 2160]);
    assert.equal(describeWrong(judgeRegions(scaled.image, [hero], 2)), "");
    const gsap = CORPUS.find((p) => p.name === "gsap")!;
    const element = await shoot(gsap.path, { selector: "#one" });
    assert.deepEqual([element.image.width, element.image.height], [560, 500]);
    const region = { ...gsap.regions[0], x: 40, y: 40 };
    assert.equal(describeWrong(judgeRegions(element.image, [region])), "", "the intro's end");
    const full = await shoot(keyframe.path, { fullPage: true, scale: 2, hideSelectors: ["h1"] });
    assert.deepEqual([full.image.width, full.image.height], [3840, keyframe.height * 2]);
    assert.equal(describeWrong(judgeRegions(full.image, keyframe.regions, 2)), "");
  });
}
