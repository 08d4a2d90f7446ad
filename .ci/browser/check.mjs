// Accessibility and layout check of the site's page templates, run by
// .ci/browser-test.sh:
//
//   node check.mjs BASE_URL SHOTS_DIR name=path ...
//
// Opens every page in Debian's Chromium (puppeteer-core, no downloaded
// browser) at 1366x900 and 390x844, light and dark, and for each:
//   - runs axe-core with the WCAG 2.0, 2.1 and 2.2 A and AA rules;
//   - checks that nothing is wider than the viewport (no page-level
//     sideways scroll, so nothing is cut off), that no SVG text runs past
//     its picture's edge, and that no visible text, SVG text included,
//     renders under 11 px;
//   - saves a screenshot of the page's top, at most maxShotScreens
//     viewports high, as SHOTS_DIR/NAME-WIDTH-SCHEME.png: enough to see
//     the template; a full page of 850 rows was megabytes each, 60 MB in
//     all.
// Exits 1 when any check finds anything.
import { createRequire } from "node:module";
import puppeteer from "puppeteer-core";

const require = createRequire(import.meta.url);
const axePath = require.resolve("axe-core/axe.min.js");
const [base, shots, ...specs] = process.argv.slice(2);
const viewports = [
  { name: "desktop", width: 1366, height: 900 },
  { name: "phone", width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
];
const schemes = ["light", "dark"];
const minFontPx = 11;
const maxShotScreens = 2;

// layoutProblems runs in the page: elements wider than the viewport, and
// visible text smaller than minFontPx once scaled (SVG text included).
function layoutProblems(minFontPx) {
  const out = [];
  const vw = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > vw + 1) {
    out.push(`page is ${document.documentElement.scrollWidth}px wide in a ${vw}px viewport`);
    for (const el of document.querySelectorAll("body *")) {
      const r = el.getBoundingClientRect();
      if (r.right > vw + 1 && r.width > 0 && !el.closest("[tabindex]")) {
        out.push(`  sticks out: <${el.tagName.toLowerCase()} class="${el.className?.baseVal ?? el.className}"> right edge ${Math.round(r.right)}px`);
        if (out.length > 6) break;
      }
    }
  }
  // SVG text that runs past its picture's edge is clipped, not scrolled.
  for (const el of document.querySelectorAll("svg text")) {
    const r = el.getBoundingClientRect();
    const s = el.ownerSVGElement.getBoundingClientRect();
    if (r.width > 0 && (r.left < s.left - 1 || r.right > s.right + 1 || r.top < s.top - 1 || r.bottom > s.bottom + 1)) {
      out.push(`cut off: svg text "${el.textContent.trim().slice(0, 40)}" spans x ${Math.round(r.left)}–${Math.round(r.right)} in a picture of x ${Math.round(s.left)}–${Math.round(s.right)}`);
    }
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || seen.has(el) || !n.textContent.trim()) continue;
    seen.add(el);
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || el.closest("title, desc, style")) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility === "hidden" || cs.display === "none") continue;
    let px = parseFloat(cs.fontSize);
    if (el instanceof SVGElement && el.getScreenCTM) {
      px *= el.getScreenCTM().a;
    }
    if (px < minFontPx - 0.05) {
      out.push(`text of ${px.toFixed(1)}px: <${el.tagName.toLowerCase()}> "${n.textContent.trim().slice(0, 40)}"`);
    }
  }
  return out;
}

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--hide-scrollbars"],
});
let problems = 0;
try {
  const page = await browser.newPage();
  // The site makes no third-party request: any request off the test
  // server is a finding.
  await page.setRequestInterception(true);
  page.on("request", (req) => {
    if (!req.url().startsWith(base) && !req.url().startsWith("data:")) {
      console.log(`third-party request: ${req.url()}`);
      problems++;
      req.abort();
    } else {
      req.continue();
    }
  });
  for (const spec of specs) {
    const [name, path] = spec.split("=");
    for (const vp of viewports) {
      for (const scheme of schemes) {
        await page.setViewport(vp);
        await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: scheme }]);
        await page.goto(base + path, { waitUntil: "load" });
        await page.addScriptTag({ path: axePath });
        const res = await page.evaluate(async () =>
          // eslint-disable-next-line no-undef
          axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"] } }),
        );
        const where = `${name} (${path}) ${vp.width}px ${scheme}`;
        for (const v of res.violations) {
          problems++;
          console.log(`axe: ${where}: ${v.id} (${v.impact}): ${v.help}`);
          for (const n of v.nodes.slice(0, 5)) console.log(`    ${n.target.join(" ")}: ${n.failureSummary.split("\n").slice(1, 2).join(" ").trim()}`);
        }
        for (const p of await page.evaluate(layoutProblems, minFontPx)) {
          problems++;
          console.log(`layout: ${where}: ${p}`);
        }
        const height = await page.evaluate(() => document.documentElement.scrollHeight);
        await page.screenshot({
          path: `${shots}/${name}-${vp.name}-${scheme}.png`,
          clip: { x: 0, y: 0, width: vp.width, height: Math.min(height, maxShotScreens * vp.height) },
          captureBeyondViewport: true,
        });
      }
    }
    console.log(`checked ${name}: ${path}`);
  }
} finally {
  await browser.close();
}
console.log(`axe-core and layout: ${specs.length} pages x ${viewports.length} sizes x ${schemes.length} schemes, ${problems} problems`);
process.exit(problems ? 1 : 0);
