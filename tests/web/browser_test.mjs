// The browser build in Debian's headless Chromium, driven the way a person uses it: open a lesson by
// its link, click Next with the mouse, look at the page; open a scenario link and read the figures the
// page shows against `shardscope report` and `shardscope plan` on the same scenario. Prints the
// size and speed figures docs/user-guide.md quotes ("In the browser").
//
//   node tests/web/browser_test.mjs --page build-web --shardscope build/app/shardscope --out DIR
//
// The page's own state (windows, widget rectangles, lesson step, each panel's figures as drawn) comes
// from shardscope_probe, the desktop's --ui-probe; clicks go through Chromium's real input pipeline.
import { chromium } from "playwright-core";
import { PNG } from "pngjs";
import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { readFileSync, mkdirSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { join, extname, resolve } from "node:path";
import assert from "node:assert/strict";

function args() {
  const a = { page: "build-web", shardscope: "build/app/shardscope", out: "build-web/test", chromium: "/usr/bin/chromium" };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) a[argv[i].replace(/^--/, "")] = argv[i + 1];
  return a;
}
const opt = args();
const scenarioFile = resolve("examples/llama3-8b-64xh100.json");
mkdirSync(opt.out, { recursive: true });

// A static host as plain as any: files as they are, the .wasm with its MIME type, no special headers
// (no COOP/COEP, so no SharedArrayBuffer: the page must not need threads).
const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".data": "application/octet-stream" };
function serve(dir) {
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://x").pathname;
    const path = url.endsWith("/") ? url + "index.html" : url;
    try {
      const body = readFileSync(join(dir, path));
      res.writeHead(200, { "Content-Type": types[extname(path)] || "application/octet-stream" });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok(server)));
}

const shardscope = (...a) => execFileSync(opt.shardscope, a, { encoding: "utf8" });

async function probe(page) {
  return JSON.parse(await page.evaluate(() => Module.ccall("shardscope_probe", "string", [], [])));
}
const windowState = (p, id) => (p.windows.find((w) => w.id === id) || {}).state;

async function waitForState(page, id, wanted, what) {
  const deadline = Date.now() + 60000;
  let last;
  while (Date.now() < deadline) {
    last = windowState(await probe(page), id);
    if (wanted(last)) return last;
    await page.waitForTimeout(100);
  }
  throw new Error(`${what}: the ${id} panel still says ${JSON.stringify(last)}`);
}

// Opens `url` and waits for drawn frames; returns the milliseconds from navigation to the first frame.
async function open(page, url) {
  await page.goto(url);
  await page.waitForFunction(() => window.Module && Module.framesDrawn >= 3, null, { timeout: 60000 });
  return page.evaluate(() => Module.firstFrameMs);
}

// As a person does it: the pointer goes to the widget, then clicks where the widget is by then (a
// window that has just appeared may still settle in its first frames).
async function clickItem(page, key) {
  const ratio = await page.evaluate(() => window.devicePixelRatio);
  const centre = async () => {
    const p = await probe(page);
    const r = p.items[key];
    assert.ok(r, `no widget "${key}" on screen (items: ${Object.keys(p.items).slice(0, 20).join(", ")}...)`);
    return [(r[0] + r[2]) / 2 / ratio, (r[1] + r[3]) / 2 / ratio];
  };
  await page.mouse.move(...(await centre()));
  await page.waitForTimeout(150);
  const [x, y] = await centre();
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.up();
}

// Waits until the page has drawn widget `key` (a menu item appears the frame after its menu opens).
async function waitForItem(page, key) {
  const deadline = Date.now() + 30000;
  while (Date.now() < deadline) {
    if ((await probe(page)).items[key]) return;
    await page.waitForTimeout(50);
  }
  await page.screenshot({ path: join(opt.out, "missing-widget.png") });
  throw new Error(`no widget "${key}" appeared (see missing-widget.png)`);
}

// Opens the File menu and clicks one of its items, both with the mouse; `expect` is the browser event
// the click should raise (a file chooser, a download), awaited together with the click.
// Headless Chromium has once (of many runs) let such a click pass without the event: the screenshot
// and the page's console say what the page showed, and the person clicks once more.
async function fileMenu(page, item, expect) {
  for (let attempt = 1; ; ++attempt) {
    await clickItem(page, "menu/File");
    await waitForItem(page, `menu/File/${item}`);
    try {
      const [event] = await Promise.all([page.waitForEvent(expect, { timeout: 15000 }), clickItem(page, `menu/File/${item}`)]);
      return event;
    } catch (e) {
      const shot = join(opt.out, `no-${expect}-${item}-${attempt}.png`);
      await page.screenshot({ path: shot });
      const p = await probe(page);
      console.log(`      note: File > ${item} raised no ${expect} (attempt ${attempt}; ${shot}; status "${p.status}", ` +
                  `error "${p.error}"; console: ${consoleLines.slice(-5).join(" / ") || "nothing"})`);
      if (attempt === 2) throw e;
      await page.keyboard.press("Escape");
    }
  }
}

// How many distinct colours a rectangle of the screenshot holds: text and charts give hundreds, an
// empty or unpainted area one or two.
function coloursIn(png, x0, y0, x1, y1) {
  const seen = new Set();
  for (let y = Math.max(0, y0 | 0); y < Math.min(png.height, y1 | 0); y += 2)
    for (let x = Math.max(0, x0 | 0); x < Math.min(png.width, x1 | 0); x += 2) {
      const i = (y * png.width + x) * 4;
      seen.add((png.data[i] << 16) | (png.data[i + 1] << 8) | png.data[i + 2]);
    }
  return seen.size;
}

const results = [];
async function test(name, body) {
  try {
    await body();
    results.push([name, true]);
    console.log(`ok    ${name}`);
  } catch (e) {
    results.push([name, false]);
    console.log(`FAIL  ${name}\n      ${String(e.stack || e).split("\n").join("\n      ")}`);
  }
}

const server = await serve(opt.page);
const base = `http://127.0.0.1:${server.address().port}/`;
const browser = await chromium.launch({
  executablePath: opt.chromium,
  args: ["--headless", "--no-sandbox", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"],
});
const viewport = { width: 1600, height: 1000 };
const page = await browser.newPage({ viewport });
const pageErrors = [];
page.on("pageerror", (e) => pageErrors.push(String(e)));
const consoleLines = [];
page.on("console", (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
const figures = {};

await test("a lesson opens by its link, Next clicked with the mouse moves it on, and the address follows", async () => {
  figures.firstFrameMs = await open(page, `${base}?lesson=pipeline-parallel&step=6`);
  assert.equal(await page.evaluate(() => document.getElementById("loading")), null, "the loading screen stayed");
  assert.equal(windowState(await probe(page), "lesson"), "lesson pipeline-parallel step 6 of 9");
  await clickItem(page, "lesson/next");
  await waitForState(page, "lesson", (s) => s === "lesson pipeline-parallel step 7 of 9", "after clicking Next");
  await page.waitForFunction(() => location.search === "?lesson=pipeline-parallel&step=7", null, { timeout: 5000 });
  const shot = join(opt.out, "lesson-step-7.png");
  await page.screenshot({ path: shot });
  const png = PNG.sync.read(readFileSync(shot));
  assert.equal(png.width, viewport.width);
  assert.equal(png.height, viewport.height);
  // The essentials of the picture: the lesson's window is painted with its text, so is the menu bar,
  // and the step the probe reports is the one whose outline the lesson asks for.
  const p = await probe(page);
  const lesson = p.windows.find((w) => w.id === "lesson");
  assert.ok(coloursIn(png, lesson.x, lesson.y, lesson.x + lesson.w, lesson.y + lesson.h) > 40, "the lesson window looks empty");
  assert.ok(coloursIn(png, 0, 0, 200, 18) > 5, "the menu bar looks empty");
  assert.ok(p.highlighted, "step 7 outlines no panel");
  assert.ok(p.windows.some((w) => w.id === p.highlighted), `the outlined panel ${p.highlighted} is not open`);
});

await test("the browser's Back goes to the lesson step before, and a link pasted over this one opens its scenario", async () => {
  // The page is at step 7, reached by clicking Next at step 6: Back returns to step 6.
  await page.goBack();
  await waitForState(page, "lesson", (s) => s === "lesson pipeline-parallel step 6 of 9", "after Back");
  assert.equal(new URL(page.url()).search, "?lesson=pipeline-parallel&step=6");
  await page.goForward();
  await waitForState(page, "lesson", (s) => s === "lesson pipeline-parallel step 7 of 9", "after Forward");
  // Only the fragment differs: the browser does not reload, the running page opens it.
  const link = shardscope("link", "--config", scenarioFile, "--lesson", "pipeline-parallel", "--step", "7", "--base", base).trim();
  await page.evaluate(() => { window.sameDocument = true; });  // a reload would forget it
  await page.goto(link);
  const deadline = Date.now() + 30000;
  while ((await probe(page)).scenario.cluster.nodes !== JSON.parse(readFileSync(scenarioFile, "utf8")).cluster.nodes) {
    assert.ok(Date.now() < deadline, "the pasted link's scenario did not open");
    await page.waitForTimeout(100);
  }
  assert.equal(await page.evaluate(() => window.sameDocument), true, "the page was reloaded, not told");
  assert.equal(windowState(await probe(page), "lesson"), "lesson pipeline-parallel step 7 of 9");
});

await test("a scenario link shows the figures `shardscope report` prints for that scenario", async () => {
  const link = shardscope("link", "--config", scenarioFile, "--base", base).trim();
  await open(page, link);
  const memory = await waitForState(page, "memory", (s) => s && s.startsWith("Fits"), "the Memory panel");
  const text = shardscope("report", "--config", scenarioFile, "--format", "text");
  const pick = (re) => {
    const m = re.exec(text);
    assert.ok(m, `report --format text has no ${re}`);
    return m[1].trim();
  };
  const lines = Object.fromEntries(memory.split("\n").slice(1).map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 2)]));
  assert.equal(lines["Step time"], pick(/^\s+step\s+(.+)$/m));
  assert.equal(lines["MFU"], pick(/^\s+MFU\s+(.+)$/m));
  assert.equal(lines["Tokens per second"], pick(/^\s+tokens\/s\s+(.+)$/m) + " tokens/s");
  assert.ok(memory.startsWith(`Fits: ${pick(/^\s+total\s+(\S+ GiB of \S+ GiB)/m)}`), memory.split("\n")[0]);
  const shown = (await probe(page)).scenario;
  const file = JSON.parse(readFileSync(scenarioFile, "utf8"));
  assert.deepEqual(shown.parallel.tp, file.parallel.tp);
  assert.deepEqual(shown.cluster.nodes, file.cluster.nodes);
  assert.deepEqual(shown.model, { ...shown.model, ...file.model });
});

await test("the planner searches in slices in the page and ranks as `shardscope plan` does", async () => {
  const missing = await page.evaluate(() => Module.ccall("shardscope_show", "string", ["string"], ["planner,memory"]));
  assert.equal(missing, "");
  const ranked = await waitForState(page, "planner", (s) => s && s !== "searching", "the planner");
  const plan = shardscope("plan", "--config", scenarioFile, "--per-mesh", "--top", "3");
  const rows = [...plan.matchAll(/^\s+(\d+)\s+(\S+ \S+)\s+(\S+%)\s+\S+ \S+\s+\S+ \S+\s+(.+)$/gm)];
  assert.equal(rows.length, 3, plan);
  const pageRows = ranked.split("\n");
  for (const [i, row] of rows.entries()) {
    const [, rank, step, mfu, layout] = row;
    assert.ok(pageRows[i].startsWith(`#${rank} `), pageRows[i]);
    assert.ok(pageRows[i].endsWith(`: ${step}, ${mfu}`), `${pageRows[i]} vs ${step}, ${mfu}`);
    // "tp 1, dp_shard 64, zero 1, mb 1, 1f1b, recompute none": the knobs after the mesh.
    const knobs = layout.slice(layout.indexOf("zero")).replace(/, emb.*$/, "");
    assert.ok(pageRows[i].includes(knobs), `${pageRows[i]} vs ${knobs}`);
  }
});

await test("File > Open picks a file with the browser's picker; Save, a table's CSV and Export screenshot arrive as downloads", async () => {
  await open(page, base);
  // A plain visit greets a newcomer first; this one goes on without a lesson.
  await waitForItem(page, "welcome/dismiss");
  await clickItem(page, "welcome/dismiss");
  const p0 = await probe(page);
  assert.equal(p0.error, "");
  assert.ok(!p0.items["menu/File/quit"], "a page offers Quit, which it cannot do");
  const other = resolve("examples/llama3-405b-16k-h100.json");
  const wanted = JSON.parse(readFileSync(other, "utf8")).model.name;
  const chooser = await fileMenu(page, "open", "filechooser");
  await chooser.setFiles(other);
  const deadline = Date.now() + 30000;
  while ((await probe(page)).scenario.model.name !== wanted) {
    assert.ok(Date.now() < deadline, `the picked file did not open (model still ${(await probe(page)).scenario.model.name})`);
    await page.waitForTimeout(100);
  }
  // The address now carries the opened scenario: the link shares it.
  await page.waitForFunction(() => location.hash.startsWith("#s=1."), null, { timeout: 5000 });
  const carried = JSON.parse(Buffer.from(new URL(page.url()).hash.slice(5), "base64url").toString("utf8"));
  assert.deepEqual(carried, (await probe(page)).scenario);
  const saved = await fileMenu(page, "save", "download");
  assert.equal(saved.suggestedFilename(), "llama3-405b-16k-h100.json");
  assert.equal((await probe(page)).status, "Downloaded the scenario as llama3-405b-16k-h100.json");
  const savedText = readFileSync(await saved.path(), "utf8");
  assert.deepEqual(JSON.parse(savedText), (await probe(page)).scenario);
  // Ctrl+S, the app's shortcut, not the browser's "save page": a download of the scenario again.
  const [again] = await Promise.all([page.waitForEvent("download", { timeout: 30000 }), page.keyboard.press("Control+S")]);
  assert.equal(again.suggestedFilename(), "llama3-405b-16k-h100.json");
  // The Memory panel's table as CSV: a download too (and on the clipboard).
  await page.evaluate(() => Module.ccall("shardscope_show", "string", ["string"], ["memory"]));
  await waitForItem(page, "memory/csv");
  const [csv] = await Promise.all([page.waitForEvent("download", { timeout: 30000 }), clickItem(page, "memory/csv")]);
  assert.equal(csv.suggestedFilename(), "shardscope-memory-table-every-stage.csv");
  const csvText = readFileSync(await csv.path(), "utf8");
  const csvLines = csvText.trim().split("\n");
  assert.equal(csvLines[0], "stage,layers,most_loaded,params_gib,grads_gib,optimizer_gib,activations_gib,other_gib," +
                            "reserved_gib,total_gib,gpu_gib,fits,host_gib");
  assert.equal(csvLines.length, 1 + JSON.parse(readFileSync(other, "utf8")).parallel.pp);  // a row per stage
  const shot = await fileMenu(page, "screenshot", "download");
  assert.match(shot.suggestedFilename(), /^shardscope-\d{8}-\d{6}\.png$/);
  assert.equal((await probe(page)).status, `Downloaded the screenshot as ${shot.suggestedFilename()}`);
  const png = PNG.sync.read(readFileSync(await shot.path()));
  assert.equal(png.width, viewport.width);
  assert.equal(png.height, viewport.height);
  assert.ok(coloursIn(png, 0, 0, png.width, png.height) > 100, "the exported screenshot looks blank");
});

await test("Import model picks a Hugging Face config with the picker, asks the length to train at, and Export trace downloads the step", async () => {
  const config = resolve("examples/hf/Mixtral-8x7B-v0.1/config.json");
  const chooser = await fileMenu(page, "import", "filechooser");
  await chooser.setFiles(config);
  // The config gives only a context window: the page asks for the training length, offering the
  // scenario's own; Import takes it.
  await waitForItem(page, "import/ok");
  const before = (await probe(page)).scenario.model.seq_len;
  await clickItem(page, "import/ok");
  const deadline = Date.now() + 30000;
  let p = await probe(page);
  while (p.scenario.model.experts !== 8) {
    assert.ok(Date.now() < deadline, `the imported config did not arrive (${p.status} ${p.error})`);
    await page.waitForTimeout(100);
    p = await probe(page);
  }
  assert.equal(p.scenario.model.seq_len, before);
  assert.equal(p.scenario.model.top_k, 2);
  const trace = await fileMenu(page, "trace", "download");
  assert.equal(trace.suggestedFilename(), "shardscope-trace.json");
  assert.match((await probe(page)).status, /^Downloaded the simulated step as shardscope-trace.json/);
  const events = JSON.parse(readFileSync(await trace.path(), "utf8")).traceEvents;
  assert.ok(Array.isArray(events) && events.length > 10, "the trace holds no events");
});

await test("a scenario dropped on the page opens; a dropped file of another kind is refused with the reason", async () => {
  const dropFile = (name, text) => page.evaluate(([n, t]) => {
    const dt = new DataTransfer();
    dt.items.add(new File([t], n, { type: "application/json" }));
    Module.canvas.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, [name, text]);
  const text = readFileSync(scenarioFile, "utf8");
  const wanted = JSON.parse(text).model.name;
  await dropFile("dropped.json", text);
  // The import before left unsaved edits: the page asks before it drops them, as the desktop does.
  await waitForItem(page, "discard/discard");
  await clickItem(page, "discard/discard");
  const deadline = Date.now() + 30000;
  let p = await probe(page);
  while (p.scenario.model.name !== wanted || p.status !== "Opened dropped.json") {
    assert.ok(Date.now() < deadline, `the dropped scenario did not open (status: ${p.status})`);
    await page.waitForTimeout(100);
    p = await probe(page);
  }
  await dropFile("notes.txt", "hello");
  const refusal = Date.now() + 30000;
  while (!(p = await probe(page)).error) {
    assert.ok(Date.now() < refusal, "a dropped .txt raised no error");
    await page.waitForTimeout(100);
  }
  assert.equal(p.error, "notes.txt: only scenarios and model configs (*.json) can be opened");
  assert.equal(p.scenario.model.name, wanted);
});

await test("on a screen of devicePixelRatio 2 the page draws at device pixels, text twice as tall, and clicks still land", async () => {
  const sharp = await browser.newPage({ viewport, deviceScaleFactor: 2 });
  try {
    await open(sharp, `${base}?lesson=pipeline-parallel&step=2`);
    const p = await probe(sharp);
    assert.deepEqual(p.viewport, [viewport.width * 2, viewport.height * 2]);
    assert.equal(p.font_px, 30);  // 15 px at ratio 1 (web/main.cpp's kBaseFontPixels)
    await clickItem(sharp, "lesson/next");
    await waitForState(sharp, "lesson", (s) => s === "lesson pipeline-parallel step 3 of 9", "after clicking Next at ratio 2");
    await sharp.screenshot({ path: join(opt.out, "ratio-2.png") });
  } finally {
    await sharp.close();
  }
});

await test("how far this browser got in a lesson outlasts the page (its local storage)", async () => {
  // The first test reached step 7 of the pipeline lesson.
  const stored = JSON.parse(await page.evaluate(() => localStorage.getItem("shardscope.lesson-progress")));
  assert.equal(stored["pipeline-parallel"], 7);
  await open(page, base);
  assert.equal(await page.evaluate(() => Module.ccall("shardscope_show", "string", ["string"], ["lesson"])), "");
  await waitForState(page, "lesson", (s) => s && s.includes("| pipeline-parallel 7 of 9"), "the lesson list after a reload");
});

await test("a broken link says which part is wrong, and the page opens as without it", async () => {
  await open(page, `${base}?lesson=no-such-lesson`);
  const p = await probe(page);
  assert.equal(p.error.startsWith("link: lesson: "), true, p.error);
  assert.ok(p.error.includes("no-such-lesson"), p.error);
  await open(page, `${base}?lesson=pipeline-parallel&step=zero`);
  assert.equal((await probe(page)).error, 'link: step: "zero" is not a whole number from 1');
});

await test("with every panel open a frame takes a measured time; the page raised no error", async () => {
  await page.evaluate(() => Module.ccall("shardscope_show", "string", ["string"],
    ["strategy,mesh,memory,scenario,collective,pipeline,planner,cheatsheet,glossary,lesson"]));
  await page.evaluate(() => Module.ccall("shardscope_draw_every_frame", null, ["number"], [1]));
  await page.waitForTimeout(3000);
  figures.frameMs = await page.evaluate(() => Module.ccall("shardscope_frame_ms", "number", [], []));
  assert.ok(figures.frameMs > 0);
  await page.screenshot({ path: join(opt.out, "all-panels.png") });
  assert.deepEqual(pageErrors, []);
});

await browser.close();
server.close();

const sizes = ["index.html", "shardscope.js", "shardscope.wasm", "shardscope.data"].map((f) => {
  const bytes = readFileSync(join(opt.page, f));
  return { file: f, bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
});
const total = sizes.reduce((s, f) => s + f.gzip, 0);
console.log("\nsize (gzip -9):", sizes.map((f) => `${f.file} ${(f.gzip / 1024).toFixed(0)} KiB`).join(", "),
            `| total ${(total / 1048576).toFixed(2)} MiB compressed`);
console.log(`time to first frame: ${figures.firstFrameMs?.toFixed(0)} ms (navigation to the first drawn frame)`);
console.log(`frame time, every panel open: ${figures.frameMs?.toFixed(1)} ms (mean of the last 120 frames' build and draw)`);
writeFileSync(join(opt.out, "figures.json"), JSON.stringify({ sizes, ...figures }, null, 2));
const failed = results.filter(([, ok]) => !ok).length;
console.log(`\n${results.length - failed} of ${results.length} browser tests passed`);
process.exit(failed ? 1 : 0);
