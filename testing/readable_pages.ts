/**
 * Pages for the Markdown and HTML reading (lib/capture/page/read_content.ts), shared by its test
 * and bench/markdown.ts: an article with the chrome a real site wraps it in (navigation, a
 * sidebar, a footer, a cookie banner), each part holding words found nowhere else, so what was
 * kept and what was left out can be told by its words.
 */

const HEAD = `<meta charset="utf-8"><meta name="viewport" content="width=device-width">`;

/** Words of the chrome only: none may appear in the Markdown of ARTICLE_PAGE. */
export const CHROME_WORDS = [
  "Pricingzebra",
  "Careersotter",
  "Sidebarwalrus",
  "Copyrightmarmot",
  "Cookiepangolin",
  "Menuquokka",
];

/** An article about ferns inside a site's chrome; its expected Markdown is ARTICLE_MARKDOWN. */
export const ARTICLE_PAGE = `<!doctype html><html lang="en"><head>${HEAD}
<title>Growing ferns indoors</title>
<style>.bar { position: fixed; bottom: 0; left: 0; right: 0; background: #eee; }</style>
</head><body>
<header><a href="/">Home</a><nav><a href="/pricing">Pricingzebra</a>
<a href="/jobs">Careersotter</a></nav></header>
<div class="mobile-menu" hidden><a href="/more">Menuquokka</a></div>
<div class="layout">
<main><article>
<h1>Growing ferns indoors</h1>
<p>Ferns like <em>steady</em> humidity and <strong>indirect</strong> light. Read the
<a href="guides/watering.html">watering guide</a> before you start, and keep the soil moist but
never soaked, since standing water rots the roots within a couple of weeks.</p>
<p>Most household ferns come from forest floors, where the canopy filters the sun and the air
stays damp all year; a bathroom window or a north-facing room comes closest to that at home.</p>
<h2 id="need">What you need<a class="headerlink" href="#need">¶</a></h2>
<ul><li>A pot with drainage holes</li><li>Peat-free compost</li><li>A spray bottle</li></ul>
<h2>Species compared</h2>
<table><thead><tr><th>Species</th><th>Light</th><th>Water</th></tr></thead>
<tbody><tr><td>Boston fern</td><td>Bright, indirect</td><td>Twice a week</td></tr>
<tr><td>Maidenhair</td><td>Shade</td><td>Keep moist</td></tr></tbody></table>
<h2>Checking the humidity</h2>
<p>A small script can log the readings of a sensor, a &lt;number&gt; every hour, so that you
see the trend:</p>
<pre><code class="language-python">for hour in range(24):
    print(read_sensor())</code></pre>
<p><img src="/img/fern.png" alt="A Boston fern"> Old fronds can be cut at the base.</p>
</article></main>
<aside><h3>Sidebarwalrus picks</h3><p>More Sidebarwalrus reading on other topics.</p></aside>
</div>
<footer><p>Copyrightmarmot 2026, all rights reserved.</p></footer>
<div class="bar"><p>We use cookies. Cookiepangolin.</p><button>Accept all</button></div>
</body></html>`;

/** The Markdown of ARTICLE_PAGE served at `origin` + "/articles/ferns.html". */
export function articleMarkdown(origin: string): string {
  return `# Growing ferns indoors

Ferns like _steady_ humidity and **indirect** light. Read the [watering guide](${origin}/articles/guides/watering.html) before you start, and keep the soil moist but never soaked, since standing water rots the roots within a couple of weeks.

Most household ferns come from forest floors, where the canopy filters the sun and the air stays damp all year; a bathroom window or a north-facing room comes closest to that at home.

## What you need

- A pot with drainage holes
- Peat-free compost
- A spray bottle

## Species compared

| Species | Light | Water |
| --- | --- | --- |
| Boston fern | Bright, indirect | Twice a week |
| Maidenhair | Shade | Keep moist |

## Checking the humidity

A small script can log the readings of a sensor, a \\<number> every hour, so that you see the trend:

\`\`\`python
for hour in range(24):
    print(read_sensor())
\`\`\`

![A Boston fern](${origin}/img/fern.png) Old fronds can be cut at the base.
`;
}
