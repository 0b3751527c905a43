import assert from "node:assert/strict";
import { matchesNoneMatch, rangeOf } from "../../lib/http/byte_ranges.ts";

const ETAG = '"abc"';

Deno.test("a single byte range is clamped to the body; past its end it is unsatisfiable", () => {
  const of = (range: string, size = 100) => rangeOf({ range }, size, ETAG);
  assert.deepEqual(of("bytes=0-0"), { kind: "partial", start: 0, end: 0 });
  assert.deepEqual(of("bytes=10-"), { kind: "partial", start: 10, end: 99 });
  assert.deepEqual(of("bytes= 10-20"), { kind: "partial", start: 10, end: 20 });
  assert.deepEqual(of("BYTES=90-500"), { kind: "partial", start: 90, end: 99 });
  assert.deepEqual(of("bytes=-1"), { kind: "partial", start: 99, end: 99 });
  assert.deepEqual(of("bytes=-500"), { kind: "partial", start: 0, end: 99 });
  for (const range of ["bytes=100-", "bytes=100-200", "bytes=-0", "bytes=99999999999999999999-"]) {
    assert.deepEqual(of(range), { kind: "unsatisfiable" }, range);
  }
  assert.deepEqual(of("bytes=0-", 0), { kind: "unsatisfiable" });
  assert.deepEqual(of("bytes=-5", 0), { kind: "unsatisfiable" });
});

Deno.test("a Range that is malformed, multiple, foreign or stale is ignored", () => {
  for (
    const range of [
      "bytes=",
      "bytes=-",
      "bytes=5-2",
      "bytes=0-1,3-4",
      "items=0-1",
      "0-1",
      "bytes=a-b",
    ]
  ) {
    assert.deepEqual(rangeOf({ range }, 100, ETAG), { kind: "full" }, range);
  }
  assert.deepEqual(rangeOf({}, 100, ETAG), { kind: "full" });
  assert.deepEqual(rangeOf({ range: "bytes=0-1", ifRange: '"old"' }, 100, ETAG), { kind: "full" });
  assert.deepEqual(rangeOf({ range: "bytes=0-1", ifRange: `W/${ETAG}` }, 100, ETAG), {
    kind: "full",
  });
  assert.deepEqual(rangeOf({ range: "bytes=0-1", ifRange: ETAG }, 100, ETAG), {
    kind: "partial",
    start: 0,
    end: 1,
  });
});

Deno.test("If-None-Match compares weakly and takes lists and *", () => {
  assert.equal(matchesNoneMatch(undefined, ETAG), false);
  assert.equal(matchesNoneMatch(ETAG, ETAG), true);
  assert.equal(matchesNoneMatch(`W/${ETAG}`, ETAG), true);
  assert.equal(matchesNoneMatch(`"x", ${ETAG}`, ETAG), true);
  assert.equal(matchesNoneMatch("*", ETAG), true);
  assert.equal(matchesNoneMatch('"abcd"', ETAG), false);
  assert.equal(matchesNoneMatch("", ETAG), false);
});
