import assert from "node:assert/strict";
import { negotiate, wantsMarkdown } from "../../lib/http/negotiate.ts";

Deno.test("markdown wins only when the client prefers it", () => {
  assert.equal(wantsMarkdown("text/markdown", "text/html"), true);
  assert.equal(wantsMarkdown(undefined, "text/html"), false);
  assert.equal(wantsMarkdown("*/*", "text/html"), false);
  assert.equal(
    wantsMarkdown("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "text/html"),
    false,
  );
  assert.equal(wantsMarkdown("text/markdown, text/html;q=0.5", "text/html"), true);
  assert.equal(wantsMarkdown("text/markdown;q=0.4, text/html", "text/html"), false);
  assert.equal(wantsMarkdown("text/markdown;q=0.9, */*;q=0.1", "application/json"), true);
  assert.equal(wantsMarkdown("text/*", "application/json"), true);
  assert.equal(wantsMarkdown("text/markdown;q=0", "text/html"), false);
});

Deno.test("the most specific range decides an offer's quality", () => {
  assert.equal(
    negotiate("text/*;q=0.2, text/markdown;q=0.9, text/html", ["text/html", "text/markdown"]),
    "text/html",
  );
  assert.equal(
    negotiate("text/html;q=0.1, text/*", ["text/html", "text/markdown"]),
    "text/markdown",
  );
  assert.equal(negotiate("garbage", ["application/json", "text/markdown"]), "application/json");
});
