// Browser check of every page of one or more sites, run by
// .ci/browser-test.sh:
//
//   node check.mjs SHOTS_DIR -- NODE BASE_URL [name=path ...] [-- NODE BASE_URL ...]
//
// One headless Chromium (Debian's, through puppeteer-core) crawls every
// HTML page reachable from each BASE_URL/index.html (and BASE_URL's 404
// page), TABS (default 2) tabs at a time, and runs every check on every
// page, none sampled. In it:
//   - every internal href and src must answer 200, and every fragment
//     (#id) must name an element of its page;
//   - at 1280x800 and 390x844, light and dark: axe-core with the WCAG 2.0,
//     2.1 and 2.2 A and AA rules reports nothing; nothing is wider than
//     the viewport (no sideways scroll); no SVG text runs past its
//     picture's edge; no visible text renders under minFontPx;
//   - at 1280 px no wrapped block of text holds more than maxLineChars
//     characters a line (the block's width over the mean width of its
//     own characters in its own font);
//   - on the phone, a page taller than jumpAfterScreens screens offers
//     in-page jump links (a link to a #fragment of the page) on its first
//     screen, and no page is taller than maxPhonePx.
// The pages named name=path are also saved as screenshots of their top,
// at most maxShotScreens screens high, as
// SHOTS_DIR/NODE/NAME-{desktop,phone}-{light,dark}.png.
// It prints its progress every 100 pages and, at the end, its wall time,
// Chromium's CPU seconds and where the time went. Exits 1 when any check
// finds anything.
import { createRequire } from "node:module";
import puppeteer from "puppeteer-core";

const require = createRequire(import.meta.url);
const axeSource = (await import("node:fs")).readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

// The bounds, documented in docs/site.md ("Browser test").
const minFontPx = 11;
const maxLineChars = 80;
const jumpAfterScreens = 6;
const maxPhonePx = 25000;
const maxShotScreens = 2;
// Tabs checking pages at once, each in its own renderer process: two keep
// both of a 2-core machine's cores busy (docs/site.md, "Browser test").
const tabs = Number(process.env.TABS || 2);

const viewports = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
];
const schemes = ["light", "dark"];

const [shotsDir, ...rest] = process.argv.slice(2);
const sites = [];
for (const arg of rest) {
  if (arg === "--") {
    sites.push({ shots: new Map() });
    continue;
  }
  const s = sites.at(-1);
  if (!s.name) s.name = arg;
  else if (!s.base) s.base = arg;
  else {
    const [name, path] = arg.split("=");
    s.shots.set(new URL(path, s.base).href, name);
  }
}

// layoutProblems runs in the page: elements wider than the viewport, SVG
// text cut off by its picture's edge, and visible text smaller than
// minFontPx once scaled (SVG text included).
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
    if (el instanceof SVGElement && el.getScreenCTM) px *= el.getScreenCTM().a;
    if (px < minFontPx - 0.05) {
      out.push(`text of ${px.toFixed(1)}px: <${el.tagName.toLowerCase()}> "${n.textContent.trim().slice(0, 40)}"`);
    }
  }
  return out;
}

// longLines runs in the page at desktop width: each block of text that
// wraps (its text is wider than its box) and whose line would hold more
// than maxChars of its own characters. Code blocks scroll instead of
// wrapping and are left out, and so are table cells: a table is scanned
// column by column, not read, and its cells' widths are the table's.
function longLines(maxChars) {
  const out = [];
  const ctx = document.createElement("canvas").getContext("2d");
  const blocks = document.querySelectorAll("main :is(p, li, dd, dt, figcaption, blockquote, summary, h1, h2, h3, h4)");
  for (const el of blocks) {
    if (el.closest("pre, svg")) continue;
    const text = el.textContent.replace(/\s+/g, " ").trim();
    if (text.length < 2) continue;
    const cs = getComputedStyle(el);
    const width = el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    ctx.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const textWidth = ctx.measureText(text).width;
    if (width <= 0 || textWidth <= width) continue;
    const perLine = Math.round((width * text.length) / textWidth);
    if (perLine > maxChars) {
      out.push(`lines of ${perLine} characters: <${el.tagName.toLowerCase()}> "${text.slice(0, 50)}"`);
    }
  }
  return out;
}

// pageFacts runs in the page: its links, its ids and its height, and
// whether its first screen offers a jump to a fragment of the page.
function pageFacts() {
  const links = [...document.querySelectorAll("[href], [src]")].map((el) => el.getAttribute("href") ?? el.getAttribute("src"));
  const ids = [...document.querySelectorAll("[id], a[name]")].map((el) => el.id || el.getAttribute("name"));
  const here = location.href.split("#")[0];
  const jump = [...document.querySelectorAll("a[href*='#']")].some((a) => {
    const u = new URL(a.getAttribute("href"), location.href);
    const r = a.getBoundingClientRect();
    return u.href.split("#")[0] === here && u.hash.length > 1 && r.height > 0 && r.top < window.innerHeight;
  });
  return { links, ids, height: document.documentElement.scrollHeight, jump };
}

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--hide-scrollbars"],
  // A loaded 2-core machine took over 3 minutes (puppeteer's default
  // limit) for one screenshot.
  protocolTimeout: 20 * 60 * 1000,
});
const problems = [];
const report = (where, what) => {
  problems.push(`${where}: ${what}`);
  console.log(problems.at(-1));
};
const checked = new Map(); // url -> its HTTP status, fetched once
const idsOf = new Map(); // page url -> the ids it holds
const fragments = []; // [from, target page url, id]
let pages = 0;
const start = Date.now();
let tallest = { height: 0 };

async function status(url) {
  if (!checked.has(url)) checked.set(url, fetch(url).then((r) => r.status, () => 0));
  return checked.get(url);
}

// time adds the milliseconds fn takes to the phase's total (summed over
// the tabs), printed at the end: where the test's time goes.
const spent = { load: 0, axe: 0, layout: 0, screenshots: 0 };
async function time(phase, fn) {
  const t0 = performance.now();
  try {
    return await fn();
  } finally {
    spent[phase] += performance.now() - t0;
  }
}

// screenshotting is held by the tab taking screenshots: headless Chromium
// captures a tab only when it is in front (a tab in the background hung a
// run for ten minutes), so one tab at a time comes to the front for it.
let screenshotting = Promise.resolve();

// visit opens one page, runs every check on it at each size and scheme,
// and returns the site's pages it links to.
async function visit(site, page, url) {
  const resp = await time("load", () => page.goto(url, { waitUntil: "load" }));
  const notFound = url.endsWith("/no/such/page.html");
  if (!resp || resp.status() !== (notFound ? 404 : 200)) {
    report(url, `answered ${resp ? resp.status() : "nothing"}`);
    return [];
  }
  const facts = await page.evaluate(pageFacts);
  idsOf.set(url, new Set(facts.ids));
  const next = [];
  for (const href of facts.links) {
    if (!href || href.startsWith("data:")) continue;
    const target = new URL(href, url);
    const id = decodeURIComponent(target.hash.slice(1));
    target.hash = "";
    const u = target.href;
    if (!u.startsWith(site.base)) continue;
    if (id) fragments.push([url, u, id]);
    if ((await status(u)) !== 200) {
      report(url, `broken link ${href}`);
      continue;
    }
    if (u.endsWith(".html") || u.endsWith("/")) next.push(u);
  }
  // The tab keeps its last size and scheme: start with them, since a
  // change between desktop and phone (isMobile) reloads the page.
  const size = page.viewport()?.width === viewports[1].width ? 1 : 0;
  for (const vp of [viewports[size], viewports[1 - size]]) {
    await time("load", () => page.setViewport(vp));
    const first = page.scheme === "dark" ? 1 : 0;
    for (const scheme of [schemes[first], schemes[1 - first]]) {
      await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: scheme }]);
      page.scheme = scheme;
      await checkVariant(site, page, url, vp, scheme);
    }
  }
  if (++pages % 100 === 0) console.log(`browser check: ${pages} pages checked, ${Math.round((Date.now() - start) / 1000)} s`);
  return next;
}

// checkVariant runs axe and the layout checks on the page as it is drawn
// at one size in one scheme, and saves its screenshot when it is one of
// the site's named pages.
async function checkVariant(site, page, url, vp, scheme) {
  const where = `${url} ${vp.width}px ${scheme}`;
  const res = await time("axe", () =>
    page.evaluate(() =>
      // eslint-disable-next-line no-undef
      axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"] } }),
    ),
  );
  for (const v of res.violations) {
    const nodes = v.nodes.slice(0, 5).map((n) => `\n    ${n.target.join(" ")}: ${n.failureSummary.split("\n").slice(1, 2).join(" ").trim()}`);
    report(where, `axe ${v.id} (${v.impact}): ${v.help}${nodes.join("")}`);
  }
  await time("layout", async () => {
    for (const p of await page.evaluate(layoutProblems, minFontPx)) report(where, `layout: ${p}`);
    if (scheme === "light") await measure(page, vp, where);
  });
  const name = site.shots.get(url);
  if (!name) return;
  const shot = screenshotting.then(() =>
    time("screenshots", async () => {
      const height = await page.evaluate(() => document.documentElement.scrollHeight);
      await page.bringToFront();
      await page.screenshot({
        path: `${shotsDir}/${site.name}/${name}-${vp.name}-${scheme}.png`,
        clip: { x: 0, y: 0, width: vp.width, height: Math.min(height, maxShotScreens * vp.height) },
        captureBeyondViewport: true,
      });
    }),
  );
  screenshotting = shot.catch(() => {});
  await shot;
}

// measure checks line length at desktop width and height on a phone.
async function measure(page, vp, where) {
  if (vp.name === "desktop") {
    for (const p of await page.evaluate(longLines, maxLineChars)) report(where, p);
    return;
  }
  const f = await page.evaluate(pageFacts);
  if (f.height > tallest.height) tallest = { height: f.height, where };
  if (f.height > maxPhonePx) report(where, `page is ${f.height}px tall on a phone, more than ${maxPhonePx}`);
  if (f.height > jumpAfterScreens * vp.height && !f.jump) {
    report(where, `page is ${f.height}px tall on a phone (${(f.height / vp.height).toFixed(1)} screens) and its first screen has no jump link`);
  }
}

// crawl visits every page of one site, tabs at a time.
async function crawl(site) {
  const seen = new Set();
  const queue = [site.base + "index.html", site.base + "no/such/page.html"];
  let busy = 0;
  async function worker() {
    const page = await browser.newPage();
    // axe-core is in every document the tab loads, reloads included, before
    // the page's own content: cheaper than adding it to each page after.
    await page.evaluateOnNewDocument(axeSource);
    await page.setViewport(viewports[0]);
    await page.setRequestInterception(true);
    page.on("request", (req) => {
      const u = req.url();
      if (u.startsWith(site.base) || u.startsWith("data:")) return req.continue();
      report(page.url(), `third-party request: ${u}`);
      req.abort();
    });
    for (;;) {
      const url = queue.pop();
      if (url === undefined) {
        if (busy === 0) break;
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      if (seen.has(url)) continue;
      seen.add(url);
      busy++;
      try {
        queue.push(...(await visit(site, page, url)));
      } catch (e) {
        report(url, `check failed: ${e.message}`);
      } finally {
        busy--;
      }
    }
    await page.close();
  }
  await Promise.all(Array.from({ length: tabs }, worker));
}

// chromiumCPU is the CPU seconds (user and system) Chromium's processes
// have used so far, those that ended included, read from Linux's /proc (0
// elsewhere): on a machine shared with other work, a steadier figure than
// the wall time.
function chromiumCPU() {
  const fs = require("node:fs");
  const stats = new Map(); // pid -> [ppid, CPU ticks]
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
      stats.set(Number(pid), [Number(f[1]), Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])]);
    } catch {
      // gone, or not Linux
    }
  }
  const root = browser.process()?.pid;
  let ticks = 0;
  for (const [pid, [, t]] of stats) {
    for (let p = pid; p > 1 && stats.has(p); p = stats.get(p)[0]) {
      if (p === root) {
        ticks += t;
        break;
      }
    }
  }
  return ticks / 100;
}

let cpu = 0;
try {
  for (const site of sites) {
    (await import("node:fs")).mkdirSync(`${shotsDir}/${site.name}`, { recursive: true });
    const before = pages;
    await crawl(site);
    console.log(`${site.name}: ${pages - before} pages`);
  }
  cpu = chromiumCPU();
} finally {
  await browser.close();
}
for (const [from, url, id] of fragments) {
  const ids = idsOf.get(url);
  if (ids && !ids.has(id)) report(from, `fragment link #${id}: no element of ${url} has that id`);
}
console.log(
  `browser check: ${pages} pages x ${viewports.length} sizes x ${schemes.length} schemes, ${checked.size} internal links, ` +
    `${fragments.length} fragment links, tallest on a phone ${tallest.height}px (${tallest.where ?? "none"}), ` +
    `${Math.round((Date.now() - start) / 1000)} s in ${tabs} tabs (Chromium's CPU ${Math.round(cpu)} s), ${problems.length} problems`,
);
console.log(`browser check: tab-seconds ${Object.entries(spent).map(([k, ms]) => `${k} ${Math.round(ms / 1000)}`).join(", ")}`);
process.exit(problems.length ? 1 : 0);
