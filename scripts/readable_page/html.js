/**
 * The rendered DOM as one HTML document: what the page's scripts built, as it stood after the
 * settle, with nothing left that runs. Taken out: script elements, on* handler attributes,
 * javascript: URLs, meta refreshes, and noscript (a page read with scripts on never showed it).
 * Added: a <base href> to the page's address (or the page's own base made absolute), so relative
 * links and styles still resolve where the file is opened; the rules a page's scripts inserted
 * into empty style elements and adopted style sheets (CSS-in-JS), which the markup alone lacks.
 */

const URL_ATTRIBUTES = new Set(["href", "src", "action", "formaction", "xlink:href", "data"]);

/** The HTML of `document` (the live one: it is cloned, never changed). */
export function htmlOf(document) {
  // A clone of the whole document: custom elements in it are never upgraded, so no page code runs.
  const clone = document.cloneNode(true);
  const root = clone.documentElement;
  if (!root) return "";
  keepScriptedStyles(document, clone);
  for (const element of root.querySelectorAll("script, noscript, meta[http-equiv=refresh i]")) {
    element.remove();
  }
  for (const element of [root, ...root.querySelectorAll("*")]) {
    for (const name of element.getAttributeNames()) {
      const value = element.getAttribute(name) ?? "";
      // Browsers ignore blanks and control characters inside a javascript: scheme.
      const scripted = URL_ATTRIBUTES.has(name) &&
        // deno-lint-ignore no-control-regex -- control characters are what a browser skips
        /^javascript:/i.test(value.replace(/[\u0000-\u0020]/g, ""));
      if (name.startsWith("on") || scripted) element.removeAttribute(name);
    }
  }
  addBase(document, clone);
  // An HTML page in quirks mode keeps it (a doctype would change how the file lays out), and an
  // XML document (SVG, XHTML) is no HTML page.
  const standards = document.contentType === "text/html" && document.compatMode === "CSS1Compat";
  const doctype = standards ? "<!DOCTYPE html>\n" : "";
  return doctype + root.outerHTML;
}

function addBase(document, clone) {
  const base = document.baseURI;
  // A document written into about:blank has no address a reader could resolve against.
  if (!/^https?:/i.test(base) || !clone.head) return;
  const existing = clone.querySelector("base[href]");
  if (existing) return void existing.setAttribute("href", base);
  const element = clone.createElement("base");
  element.setAttribute("href", base);
  clone.head.prepend(element);
}

/** CSS that lives only in the style sheet objects is written into the clone as text. */
function keepScriptedStyles(document, clone) {
  const live = document.querySelectorAll("style");
  const copies = clone.querySelectorAll("style");
  if (live.length === copies.length) {
    live.forEach((style, index) => {
      if (style.textContent?.trim()) return;
      const rules = rulesOf(style.sheet);
      if (rules) copies[index].textContent = rules;
    });
  }
  const adopted = (document.adoptedStyleSheets ?? []).map(rulesOf).filter(Boolean).join("\n");
  if (adopted && clone.head) {
    const style = clone.createElement("style");
    style.textContent = adopted;
    clone.head.append(style);
  }
}

function rulesOf(sheet) {
  try {
    return sheet ? [...sheet.cssRules].map((rule) => rule.cssText).join("\n") : "";
  } catch {
    return ""; // a sheet of another origin does not show its rules
  }
}
