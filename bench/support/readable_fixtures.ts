/**
 * Made-up pages for bench/markdown.ts shaped like real sites where landmarks are missing: a
 * documentation page whose sidebar, breadcrumbs and top bar are plain divs, and a blog's front page
 * (no single article) behind a consent platform's banner. Each marks its content with
 * `data-main` so the bench knows what the main text is.
 */

const HEAD = `<meta charset="utf-8"><meta name="viewport" content="width=device-width">`;

const LINKS = (words: string[]) => words.map((word) => `<a href="/${word}">${word}</a>`).join(" ");

/** A docs page laid out with divs: top bar, sidebar tree, breadcrumbs, page TOC, site footer. */
export const DIV_DOCS_PAGE =
  `<!doctype html><html><head>${HEAD}<title>Configuring retries - Gizmo docs</title>
<style>.layout { display: flex } .sidebar { width: 240px } .menu-mobile { display: none }</style>
</head><body>
<div class="topbar"><span class="logo">Gizmo</span> ${
    LINKS(["Guides", "Reference", "Community", "Blog", "Enterprise"])
  }</div>
<div class="menu-mobile">${LINKS(["Drawer", "Overlay", "Burger"])}</div>
<div class="layout">
<div class="sidebar"><ul><li>${LINKS(["Installation"])}</li><li>${LINKS(["Quickstart"])}</li><li>${
    LINKS(["Authentication"])
  }</li>
<li>${LINKS(["Webhooks"])}</li><li>${LINKS(["Pagination"])}</li><li>${
    LINKS(["Deployment"])
  }</li></ul></div>
<div class="content" data-main>
<div class="breadcrumbs">${LINKS(["Docs", "Clients"])} / Retries</div>
<h1>Configuring retries</h1>
<p>The client retries a request that failed with a network error or a 503 answer, waiting a
little longer before each attempt. The wait doubles every time and a random jitter is added so
that many clients do not retry in lockstep after an outage.</p>
<p>Retries are safe for idempotent methods only; a POST is retried only when the server said it
did not process the request, through the <code>Retry-After</code> header or a 429 status.</p>
<h2>Options</h2>
<table><tr><th>Option</th><th>Default</th><th>Meaning</th></tr>
<tr><td><code>maxAttempts</code></td><td>3</td><td>Attempts in total, the first included</td></tr>
<tr><td><code>baseDelayMs</code></td><td>200</td><td>The first wait, before jitter</td></tr>
<tr><td><code>maxDelayMs</code></td><td>5000</td><td>No wait is longer than this</td></tr></table>
<h2>Example</h2>
<div class="highlight-typescript"><pre>const client = new Gizmo({ retries: { maxAttempts: 5 } });
await client.orders.list();</pre></div>
<p>Set <code>maxAttempts</code> to one to turn retries off altogether, for instance in tests that
expect the first failure to surface.</p>
</div>
<div class="toc-right"><p>On this page</p>${LINKS(["Options", "Example", "Feedback"])}</div>
</div>
<div class="site-footer">${LINKS(["Imprint", "Privacy", "Status", "Twitter", "GitHub"])}
<p>Gizmo Incorporated, registered office somewhere.</p></div>
</body></html>`;

/** A blog's front page: several teasers, no article of its own, and a OneTrust-like banner. */
export const BLOG_FRONT_PAGE = `<!doctype html><html><head>${HEAD}<title>Field notes</title>
<style>#onetrust-banner-sdk { position: fixed; bottom: 0; background: white }</style>
</head><body>
<header><h2>Field notes</h2><nav>${LINKS(["Archive", "About", "Subscribe", "Feed"])}</nav></header>
<main data-main>
<h1>Latest posts</h1>
<section><h2><a href="/2026/lichens">Lichens on city walls</a></h2>
<p>Lichens grow slowly and tell a patient observer how clean the air has been for decades.</p></section>
<section><h2><a href="/2026/moss">A moss garden in a shoebox</a></h2>
<p>Moss needs shade, rainwater and patience more than it needs soil.</p></section>
<section><h2><a href="/2026/slime">Slime moulds solve mazes</a></h2>
<p>A single cell without a brain finds the shortest route between oat flakes.</p></section>
</main>
<aside><h3>Popular</h3>${LINKS(["Mushrooms", "Ferns", "Algae"])}</aside>
<footer>${LINKS(["Mastodon", "Newsletter"])} Written by hand since 2009.</footer>
<div id="onetrust-consent-sdk"><div id="onetrust-banner-sdk"><p>We and our partners store
and access information on your device, such as unique identifiers, for measurement.</p>
<button>Reject</button><button>Accept</button></div></div>
</body></html>`;
