import assert from "node:assert/strict";
import { signRenderLink, verifyRenderLink } from "../../lib/http/render_links.ts";

const SECRET = "the-recipe-secret-of-at-least-32-characters";
const DOC = new URL("../../docs/render-links.md", import.meta.url);

type RenderLink = (
  base: string,
  fields: object,
  secret: string,
  expiresAt: Date,
) => Promise<string>;

/** The Web Crypto recipe of docs/render-links.md, as a module. */
async function recipe(): Promise<RenderLink> {
  const text = await Deno.readTextFile(DOC);
  const block = /<!-- recipe[^>]*-->\s*```ts\n([\s\S]*?)```/.exec(text)?.[1];
  assert.ok(block, "docs/render-links.md has the recipe block");
  const file = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    await Deno.writeTextFile(file, `${block}\nexport { renderLink };\n`);
    return (await import(`file://${file}`)).renderLink;
  } finally {
    await Deno.remove(file);
  }
}

Deno.test("the docs' Web Crypto recipe makes the very links the service signs and verifies", async () => {
  const renderLink = await recipe();
  const expiresAt = new Date(Date.UTC(2026, 0, 1, 1));
  const fields = {
    url: "https://example.com/a b?q=(1)&x=!*'",
    width: 1200,
    fullPage: true,
    hideSelectors: [".chat", "#promo"],
    clip: undefined,
    timezone: "Etc/GMT+1",
  };
  const made = await renderLink("https://shots.example", fields, SECRET, expiresAt);
  const signed = await signRenderLink("https://shots.example", fields, {
    secret: SECRET,
    expiresAt,
  });
  // The order of the parameters may differ; the signature may not.
  const signatureOf = (link: string) => new URL(link).searchParams.get("signature");
  assert.equal(signatureOf(made), signatureOf(signed));
  const verdict = await verifyRenderLink(new URL(made).searchParams, {
    secret: SECRET,
    now: expiresAt.getTime() - 1,
  });
  assert.ok(verdict.valid);
  assert.deepEqual(
    new Map(verdict.fields),
    new Map([
      ["url", fields.url],
      ["width", "1200"],
      ["fullPage", "true"],
      ["hideSelectors", '[".chat","#promo"]'],
      ["timezone", "Etc/GMT+1"],
    ]),
  );
});
