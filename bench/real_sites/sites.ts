/**
 * The real-site corpus: published npm templates and library demo pages, served as installed
 * (`/npm/...`), and two pages composed here from installed libraries for what no published page
 * covers (`/pages/...`). `covers` says what each one tests; `offline` what it asks of other hosts
 * and how the corpus server answers (see `CDN_FILES` in `serve.ts`).
 */

export interface Site {
  name: string;
  /** Path on the corpus server. */
  path: string;
  /** The npm package and version the page comes from. */
  source: string;
  covers: string;
  offline: string;
}

export const SITES: Site[] = [
  {
    name: "creative",
    path: "/npm/startbootstrap-creative/dist/index.html",
    source: "startbootstrap-creative@7.0.7",
    covers: "landing page: 100vh cover hero, fixed navbar that turns solid and shrinks once " +
      "scrolled, portfolio grid",
    offline: "Bootstrap 5.2.3 JS, Bootstrap Icons 1.5.0, SimpleLightbox (2.1.3 for 2.1.0) and " +
      "Google Fonts (@fontsource) from npm; sb-forms-latest.js 404",
  },
  {
    name: "resume",
    path: "/npm/startbootstrap-resume/dist/index.html",
    source: "startbootstrap-resume@7.0.6",
    covers: "portfolio / CV: fixed side navigation, 100vh sections",
    offline: "Bootstrap 5.2.3 JS, Font Awesome 6.3.0 JS, Google Fonts (@fontsource) from npm",
  },
  {
    name: "sb-admin-2",
    path: "/npm/startbootstrap-sb-admin-2/index.html",
    source: "startbootstrap-sb-admin-2@4.1.4",
    covers: "dashboard: Chart.js charts animated in, scroll-to-top button shown once scrolled",
    offline: "Nunito from npm (@fontsource); an Unsplash avatar 404",
  },
  {
    name: "gentelella",
    path: "/npm/gentelella/dist/production/index.html",
    source: "gentelella@4.2.0",
    covers: "dashboard: fixed top bar, fixed sidebar with its own scroller, charts",
    offline: "Inter from npm (@fontsource); root-absolute assets served from its dist folder",
  },
  {
    name: "gentelella-landing",
    path: "/npm/gentelella/dist/production/landing.html",
    source: "gentelella@4.2.0",
    covers: "landing page: sticky header, feature grid",
    offline: "Inter from npm (@fontsource)",
  },
  {
    name: "aos-demo",
    path: "/npm/aos/demo/simple.html",
    source: "aos@2.3.4",
    covers: "AOS reveals (fade, flip, zoom), hidden again once scrolled past",
    offline: "html5shiv (IE only) 404",
  },
  {
    name: "wow-demo",
    path: "/npm/wowjs/demo.html",
    source: "wowjs@1.1.3",
    covers: "WOW.js + animate.css reveals (one 2 s delayed, one 4 s long), an endless pulse",
    offline: "none",
  },
  {
    name: "counterup-demo",
    path: "/npm/jquery.counterup/demo/index.html",
    source: "jquery.counterup@2.1.0",
    covers: "counters that count up once scrolled into view (Waypoints)",
    offline: "jQuery (3.7.1 for 1.12.2), Waypoints (4.0.1 for 4.0.0) and Open Sans from npm",
  },
  {
    name: "rellax-demo",
    path: "/npm/rellax/demo.html",
    source: "rellax@1.12.1",
    covers: "parallax layers that move with the scroll position, a fixed backdrop grid",
    offline: "Source Sans Pro from npm (@fontsource)",
  },
  {
    name: "landing",
    path: "/pages/landing.html",
    source: "composed here (gsap@3.15.0, scrollreveal@4.0.9, swiper@14.4.0, rellax@1.12.1, " +
      "waypoints@4.0.1, jquery.counterup@2.1.0, vanilla-lazyload@19.1.3)",
    covers: "preloader, header solid once scrolled, `background-attachment: fixed` heroes, " +
      "ScrollReveal, ScrollTrigger `scrub`, counters, Swiper autoplay, Rellax, lazy images",
    offline: "none",
  },
  {
    name: "app-shell",
    path: "/pages/app_shell.html",
    source: "composed here (lozad@1.16.0)",
    covers: "app shell: one-viewport document, fixed app bar and side navigation, content " +
      "scrolling inside <main> with lazy images observed in it",
    offline: "none",
  },
];
