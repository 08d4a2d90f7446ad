// Link check of the site, run by .ci/browser-test.sh:
//
//   node crawl.mjs BASE_URL
//
// Opens every HTML page reachable from BASE_URL/index.html in one headless
// Chromium (puppeteer-core, Debian's browser), a few tabs at a time, and
// checks that every internal href and src of the rendered DOM answers 200.
// One browser for the whole crawl: starting a Chromium per page, as the
// script's first crawl did, cost most of its time on a node with hundreds
// of pages. Exits 1 when a link is broken.
import puppeteer from "puppeteer-core";

const [base] = process.argv.slice(2);
const tabs = 4;

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"],
});
const seen = new Set();
const checked = new Map(); // url -> its HTTP status
const broken = [];
const queue = [base + "index.html"];

// status fetches url once, however many pages link to it.
async function status(url) {
  if (!checked.has(url)) {
    checked.set(url, fetch(url).then((r) => r.status, () => 0));
  }
  return checked.get(url);
}

// visit renders one page and queues the pages it links to.
async function visit(page, url) {
  const resp = await page.goto(url, { waitUntil: "load" });
  if (!resp || resp.status() !== 200) {
    broken.push(`${url}: answered ${resp ? resp.status() : "nothing"}`);
    return;
  }
  const links = await page.evaluate(() =>
    [...document.querySelectorAll("[href], [src]")].map((el) => el.getAttribute("href") ?? el.getAttribute("src")),
  );
  for (const href of links) {
    if (!href) continue;
    const target = new URL(href, url);
    target.hash = "";
    const u = target.href;
    if (!u.startsWith(base)) continue;
    if ((await status(u)) !== 200) {
      broken.push(`${url}: broken link ${href}`);
      continue;
    }
    if (u.endsWith(".html") || u.endsWith("/")) queue.push(u);
  }
}

// worker takes pages off the queue until none is left and no other tab
// may still add one.
let busy = 0;
async function worker() {
  const page = await browser.newPage();
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
      await visit(page, url);
    } finally {
      busy--;
    }
  }
  await page.close();
}

try {
  await Promise.all(Array.from({ length: tabs }, worker));
} finally {
  await browser.close();
}
console.log(`browser crawl: ${seen.size} pages, ${checked.size} internal links checked, ${broken.length} broken`);
for (const b of broken) console.log("  " + b);
process.exit(broken.length ? 1 : 0);
