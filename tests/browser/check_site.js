#!/usr/bin/env node
// check_site.js - opens a generated cgmap site in headless Chromium and checks
// it as a person would: every page loads from file:// without a console
// error, an uncaught exception or a blocked request; no page runs a script
// other than the site's own (alert() is trapped); the search box finds a
// function as you type and its result opens the right page; every graph node
// links to the page of the function it names, and clicking one goes there;
// sortable tables sort; an entry point's execution tree expands and its
// flame graph zooms, searches and links; the index and the flame graph read
// without JavaScript.  Screenshots go
// to --artifacts.
//
// Talks to Chromium over the DevTools protocol on a pipe
// (--remote-debugging-pipe: fd 3 in, fd 4 out, messages ended by NUL), so it
// needs nothing beyond node itself.
//
// usage: node check_site.js --site DIR --artifacts DIR [--chromium PATH]
//          [--search TEXT --expect ID]... [--graph-page ID]... [--expect-timeline]
// Prints one line per check and "N passed, N failed"; exit 1 on a failure.
'use strict';

const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { pathToFileURL } = require('url');

function parseArgs(argv) {
  const a = { searches: [], graphPages: [], chromium: 'chromium' };
  for (let i = 2; i < argv.length; i++) {
    const k = argv[i], v = argv[i + 1];
    if (k === '--site') a.site = path.resolve(v), i++;
    else if (k === '--artifacts') a.artifacts = path.resolve(v), i++;
    else if (k === '--chromium') a.chromium = v, i++;
    else if (k === '--search') a.searches.push({ text: v, expect: null }), i++;
    else if (k === '--expect') a.searches[a.searches.length - 1].expect = v, i++;
    else if (k === '--graph-page') a.graphPages.push(v), i++;
    else if (k === '--expect-timeline') a.expectTimeline = true;
    else throw new Error('unknown argument ' + k);
  }
  if (!a.site || !a.artifacts) throw new Error('need --site and --artifacts');
  return a;
}

const args = parseArgs(process.argv);
fs.mkdirSync(args.artifacts, { recursive: true });
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'cgmap-chromium-'));
const chrome = spawn(args.chromium, [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-extensions', '--mute-audio', '--hide-scrollbars',
  '--user-data-dir=' + profile, '--remote-debugging-pipe', '--window-size=1300,1000',
  'about:blank',
], { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
let chromeLog = '';
chrome.stderr.on('data', (d) => { chromeLog += d; });

let nextId = 1;
const pending = new Map();
const listeners = [];
let inbuf = Buffer.alloc(0);
chrome.stdio[4].on('data', (chunk) => {
  inbuf = Buffer.concat([inbuf, chunk]);
  let end;
  while ((end = inbuf.indexOf(0)) >= 0) {
    const msg = JSON.parse(inbuf.slice(0, end).toString('utf8'));
    inbuf = inbuf.slice(end + 1);
    if (msg.id && pending.has(msg.id)) {
      const { resolve, reject, method } = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) reject(new Error(method + ': ' + msg.error.message));
      else resolve(msg.result);
    } else if (msg.method) {
      for (const l of listeners.slice()) l(msg);
    }
  }
});

function send(method, params = {}, sessionId) {
  const id = nextId++;
  const msg = { id, method, params };
  if (sessionId) msg.sessionId = sessionId;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, method });
    chrome.stdio[3].write(JSON.stringify(msg) + '\0');
  });
}

function waitFor(pred, ms, what) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      listeners.splice(listeners.indexOf(fn), 1);
      reject(new Error('timed out waiting for ' + what));
    }, ms);
    function fn(msg) {
      if (!pred(msg)) return;
      clearTimeout(timer);
      listeners.splice(listeners.indexOf(fn), 1);
      resolve(msg);
    }
    listeners.push(fn);
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let passed = 0, failed = 0;
function check(ok, what) {
  if (ok) passed++; else failed++;
  console.log((ok ? 'ok   ' : 'FAIL ') + what);
}

async function main() {
  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
  const S = (m, p) => send(m, p, sessionId);
  const problems = [];
  listeners.push((msg) => {
    if (msg.sessionId !== sessionId) return;
    if (msg.method === 'Runtime.exceptionThrown')
      problems.push('exception: ' + msg.params.exceptionDetails.text + ' ' +
        ((msg.params.exceptionDetails.exception || {}).description || ''));
    else if (msg.method === 'Runtime.consoleAPICalled' &&
             (msg.params.type === 'error' || msg.params.type === 'warning' || msg.params.type === 'assert'))
      problems.push('console.' + msg.params.type + ': ' +
        msg.params.args.map((x) => x.value || x.description).join(' '));
    else if (msg.method === 'Log.entryAdded' &&
             (msg.params.entry.level === 'error' || msg.params.entry.level === 'warning'))
      problems.push('log ' + msg.params.entry.level + ': ' + msg.params.entry.text +
        (msg.params.entry.url ? ' (' + msg.params.entry.url + ')' : ''));
    else if (msg.method === 'Network.loadingFailed')
      problems.push('load failed: ' + msg.params.errorText);
    else if (msg.method === 'Network.requestWillBeSent' &&
             !/^(file|data|about):/.test(msg.params.request.url))
      problems.push('network request: ' + msg.params.request.url);
  });
  await S('Runtime.enable');
  await S('Log.enable');
  await S('Page.enable');
  await S('Network.enable');
  // Any alert() would mean a name ran as code.
  await S('Page.addScriptToEvaluateOnNewDocument', {
    source: 'window.__cgmapAlerts = 0; window.alert = function () { window.__cgmapAlerts++; };',
  });

  const evaluate = async (expr) => {
    const r = await S('Runtime.evaluate', { expression: expr, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) throw new Error('evaluate failed: ' + expr + ': ' + r.exceptionDetails.text);
    return r.result.value;
  };
  const navigate = async (url) => {
    const loaded = waitFor((m) => m.sessionId === sessionId && m.method === 'Page.loadEventFired', 15000, 'load of ' + url);
    const r = await S('Page.navigate', { url });
    if (r.errorText) throw new Error('navigate ' + url + ': ' + r.errorText);
    await loaded;
    await sleep(30);
  };
  const screenshot = async (name, full) => {
    let clip;
    if (full) {
      const m = await S('Page.getLayoutMetrics');
      const h = Math.min(Math.ceil(m.cssContentSize.height), 6000);
      clip = { x: 0, y: 0, width: 1300, height: h, scale: 1 };
    }
    const r = await S('Page.captureScreenshot', clip ? { format: 'png', clip, captureBeyondViewport: true } : { format: 'png' });
    fs.writeFileSync(path.join(args.artifacts, name + '.png'), Buffer.from(r.data, 'base64'));
  };
  const fileUrl = (rel) => pathToFileURL(path.join(args.site, rel)).href;
  const currentPath = async () => decodeURIComponent(new URL(await evaluate('location.href')).pathname);

  // 1. Every page loads cleanly and runs nothing of its own.
  const pages = [];
  (function walk(dir) {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.html')) pages.push(path.relative(args.site, p));
    }
  })(args.site);
  check(pages.length > 0, 'the site has ' + pages.length + ' pages');
  // The index, function and relation pages load the search index (the
  // latter take the ids of the functions they show from it); the rest
  // only the site's script.
  const expectedScripts = (rel) => (rel === 'index.html' || rel.startsWith('functions/') || rel.startsWith('relations/') ? 2 : 1);
  let cleanPages = 0;
  for (const rel of pages) {
    problems.length = 0;
    await navigate(fileUrl(rel));
    const facts = await evaluate(`({
      alerts: window.__cgmapAlerts,
      // Graph data (a JSON block right after the empty SVG the site's
      // script draws it into) is never run; any other script is the site's.
      scripts: document.querySelectorAll('script:not([type="application/json"])').length,
      // So is a function page's data (one block, id cgmap-page).
      foreign: Array.from(document.querySelectorAll('script')).filter(s => s.type === 'application/json'
        ? !(s.classList.contains('layered-data') && s.previousElementSibling && s.previousElementSibling.matches('svg.layered'))
          && !(s.id === 'cgmap-page' && document.querySelectorAll('script#cgmap-page').length === 1)
        : !/(assets\\/cgmap\\.js|search-index\\.js)$/.test(s.src)).length,
      // The legend's drawing is the one image a page may show.
      hostile: document.querySelectorAll('img:not(details.legend > img), iframe, object, embed').length,
      title: document.title,
      h1: (document.querySelector('h1') || {}).textContent || '',
      svgs: document.querySelectorAll('.graph svg').length,
      legend: document.querySelectorAll('details.legend').length,
    })`);
    const bad = [];
    if (problems.length) bad.push(problems.join('; '));
    if (facts.alerts) bad.push(facts.alerts + ' alert() calls');
    if (facts.foreign || facts.scripts !== expectedScripts(rel)) bad.push('unexpected scripts');
    if (facts.hostile) bad.push(facts.hostile + ' embedded elements');
    if (!facts.h1) bad.push('no heading');
    if (facts.svgs && !facts.legend) bad.push('graph without legend');
    if (bad.length) check(false, rel + ': ' + bad.join(', '));
    else cleanPages++;
  }
  check(cleanPages === pages.length, cleanPages + ' of ' + pages.length + ' pages load without console errors, foreign scripts or alerts');

  // 2. The search box finds a function as you type; the result opens its page.
  await navigate(fileUrl('index.html'));
  await screenshot('index', true);
  check(await evaluate("!document.getElementById('search-box').hidden"), 'the search box is shown when scripts run');
  for (const s of args.searches) {
    await navigate(fileUrl('index.html'));
    await evaluate("document.getElementById('search').focus()");
    await S('Input.insertText', { text: s.text });
    await sleep(50);
    const results = await evaluate(`Array.from(document.querySelectorAll('#search-results a')).map(a => [a.textContent, a.getAttribute('href')])`);
    const hit = results.find((r) => r[0] === s.expect);
    check(!!hit, `search "${s.text}" lists ${s.expect} (${results.length} results)`);
    await screenshot('search-' + s.text.replace(/[^A-Za-z0-9]+/g, '_'), false);
    if (!hit) continue;
    const linkIndex = results.indexOf(hit);
    await evaluate(`document.querySelectorAll('#search-results a')[${linkIndex}].scrollIntoView()`);
    const box = await evaluate(`(() => { const r = document.querySelectorAll('#search-results a')[${linkIndex}].getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`);
    const loaded = waitFor((m) => m.sessionId === sessionId && m.method === 'Page.loadEventFired', 15000, 'search result page');
    await S('Input.dispatchMouseEvent', { type: 'mousePressed', x: box[0], y: box[1], button: 'left', clickCount: 1 });
    await S('Input.dispatchMouseEvent', { type: 'mouseReleased', x: box[0], y: box[1], button: 'left', clickCount: 1 });
    await loaded;
    const h1 = await evaluate("document.querySelector('h1').textContent");
    check(h1 === s.expect, `clicking the result opens the page of ${s.expect} (got "${h1}")`);
  }
  // The same search from a page one folder down: the index loads on first
  // use and its links lead back up.
  if (args.searches.length) {
    const s = args.searches[0];
    const start = pages.find((p) => p.startsWith('schemas/'));
    await navigate(fileUrl(start));
    check(await evaluate("!document.getElementById('search-box').hidden && !window.CGMAP_INDEX"),
      `the search box is on ${start}, its index not loaded yet`);
    await evaluate("document.getElementById('search').focus()");
    await S('Input.insertText', { text: s.text });
    await sleep(300);
    const results = await evaluate(`Array.from(document.querySelectorAll('#search-results a')).map(a => [a.textContent, a.href])`);
    const hit = results.find((r) => r[0] === s.expect);
    const want = await evaluate(`((window.CGMAP_INDEX || []).find(e => e[0] === ${JSON.stringify(s.expect)}) || [])[1] || ''`);
    check(!!hit && !!want && hit[1] === fileUrl(want),
      `search "${s.text}" on ${start} lists ${s.expect} linking to ${want} (${results.length} results; got ${hit ? hit[1] : 'none'})`);
  }

  // 3. Graph nodes link to the pages of the functions they name.
  const graphHrefs = [];
  for (const id of args.graphPages) {
    await navigate(fileUrl('index.html'));
    const href = await evaluate(`(window.CGMAP_INDEX.find(e => e[0] === ${JSON.stringify(id)}) || [])[1] || ''`);
    check(!!href, `the search index knows ${id}`);
    if (!href) continue;
    graphHrefs.push(href);
    await navigate(fileUrl(href));
    await screenshot('function-' + id.replace(/[^A-Za-z0-9]+/g, '_'), true);
    // Every label of cgmap's own layout fits its box in this browser's
    // fonts (measured with Helvetica's widths, drawn with whatever
    // sans-serif the system has).
    const overflowing = await evaluate(`Array.from(document.querySelectorAll('.graph svg.layered a.node')).flatMap(g => {
      const shape = g.querySelector('rect, ellipse, polygon');
      if (!shape) return [];
      const box = shape.getBBox();
      return Array.from(g.querySelectorAll('text')).filter(t => {
        const b = t.getBBox();
        return b.x < box.x - 0.5 || b.x + b.width > box.x + box.width + 0.5;
      }).map(t => t.textContent + ' (' + Math.round(t.getBBox().width) + ' px in ' + Math.round(box.width) + ')');
    })`);
    const labels = await evaluate(`document.querySelectorAll('.graph svg.layered a.node text').length`);
    // Every arrow the script drew names a marker it defined in that graph.
    const arrows = await evaluate(`Array.from(document.querySelectorAll('.graph svg.layered a.edge path')).map(p => {
      const ids = ['marker-end', 'marker-start'].map(k => p.getAttribute(k)).filter(Boolean);
      return ids.map(u => !!p.ownerSVGElement.querySelector('marker' + u.slice(4, -1))).every(Boolean) ? ids.length : -1;
    })`);
    check(arrows.length > 0 && arrows.every(n => n >= 0) && arrows.some(n => n > 0),
      `${id}: ${arrows.length} edges drawn, their arrowheads defined in the graph`);
    check(overflowing.length === 0, `${id}: all ${labels} labels fit their boxes (overflowing: ${overflowing.join('; ')})`);
    const nodes = await evaluate(`Array.from(document.querySelectorAll('.graph svg g.node a, .graph svg a.node')).map(a => ({
      href: a.getAttribute('xlink:href') || a.getAttribute('href') || '',
      title: a.getAttribute('xlink:title') || a.getAttribute('title') || '',
      text: Array.from(a.querySelectorAll('text')).map(t => t.textContent).join(' '),
    }))`);
    // A function page's graph links its nodes beside it ("x.html"); a
    // schema's from "../functions/".
    const fnNodes = nodes.filter((n) => /^(\.\.\/functions\/)?[^/#]+\.html$/.test(n.href));
    check(fnNodes.length > 0, `${id}: the graph has ${fnNodes.length} function nodes with links`);
    const here = path.dirname(path.join(args.site, href));
    let right = 0;
    for (const n of fnNodes) {
      await navigate(pathToFileURL(path.join(here, n.href)).href);
      const h1 = await evaluate("document.querySelector('h1').textContent");
      // A node's tooltip starts with the id of the function it stands for.
      if (n.title === h1 || n.title.startsWith(h1 + ' (') || n.title.startsWith(h1 + '\n')) right++;
      else check(false, `${id}: node "${n.text}" links to the page of "${h1}" but says "${n.title}"`);
    }
    check(right === fnNodes.length, `${id}: ${right} of ${fnNodes.length} graph nodes open the page of the function they name`);

    // The callers, callees and relations tables the script built from the
    // page's data: a row per entry, each function named by the id of the
    // page it links to, each call-site line linking to a line of a source.
    await navigate(fileUrl(href)); // the node checks went to other pages
    const tables = await evaluate(TABLES_SCRIPT);
    check(tables.rows === tables.want && tables.rows > 0 && tables.bad.length === 0,
      `${id}: the tables hold ${tables.rows} of ${tables.want} rows, each named as its page (wrong: ${tables.bad.join('; ')})`);
    const lines = await evaluate(`(() => {
      const links = Array.from(document.querySelectorAll('table[data-rows] td a[href*="#L"]'));
      const here = links.filter(a => a.getAttribute('href').startsWith('#'));
      return { all: links.length, here: here.length,
        missing: here.filter(a => !document.getElementById(a.getAttribute('href').slice(1))).map(a => a.getAttribute('href')),
        numbered: document.querySelectorAll('pre.source > span[id^="L"]').length,
        text: (document.querySelector('pre.source') || {}).textContent || '' };
    })()`);
    check(lines.missing.length === 0 && (lines.numbered > 0 || !lines.text),
      `${id}: ${lines.numbered} source lines numbered; the ${lines.here} line links into it land (missing: ${lines.missing.join(' ')})`);

    // A real click on a node other than this function's own.
    await navigate(fileUrl(href));
    const target = await evaluate(`(() => {
      const as = Array.from(document.querySelectorAll('.graph svg g.node a, .graph svg a.node')).filter(a => /^(\\.\\.\\/functions\\/)?[^/#]+\\.html$/.test(a.getAttribute('xlink:href') || ''));
      const me = document.querySelector('h1').textContent;
      const a = as.find(x => !(x.getAttribute('xlink:title') || '').startsWith(me)) || as[0];
      if (!a) return null;
      a.scrollIntoView({ block: 'center' });
      const shape = a.querySelector('rect, path, polygon, ellipse') || a;
      const r = shape.getBoundingClientRect();
      return { x: r.x + r.width / 2, y: r.y + r.height / 2, title: a.getAttribute('xlink:title') };
    })()`);
    if (target) {
      const loaded = waitFor((m) => m.sessionId === sessionId && m.method === 'Page.loadEventFired', 15000, 'node click');
      await S('Input.dispatchMouseEvent', { type: 'mousePressed', x: target.x, y: target.y, button: 'left', clickCount: 1 });
      await S('Input.dispatchMouseEvent', { type: 'mouseReleased', x: target.x, y: target.y, button: 'left', clickCount: 1 });
      let ok = false, h1 = '';
      try {
        await loaded;
        h1 = await evaluate("document.querySelector('h1').textContent");
        ok = target.title.startsWith(h1);
      } catch (e) { h1 = String(e.message); }
      check(ok, `${id}: clicking the node of ${target.title.split(' (')[0].split('\n')[0]} opens its page (got "${h1}")`);
    }
  }

  // A relation page's readers and writers tables.
  const relPage = pages.find((p) => p.startsWith('relations/') &&
    /"[aw]":\[\[/.test(fs.readFileSync(path.join(args.site, p), 'utf8')));
  if (relPage) {
    await navigate(fileUrl(relPage));
    const tables = await evaluate(TABLES_SCRIPT);
    check(tables.rows === tables.want && tables.rows > 0 && tables.bad.length === 0,
      `${relPage}: the tables hold ${tables.rows} of ${tables.want} rows, each named as its page (wrong: ${tables.bad.join('; ')})`);
  }

  // 4. Sortable tables sort (the schema page's function table, by callees).
  // The schema with the most functions makes the strongest test.
  const schemaPage = pages.filter((p) => p.startsWith('schemas/'))
    .sort((a, b) => fs.statSync(path.join(args.site, b)).size - fs.statSync(path.join(args.site, a)).size)[0];
  if (schemaPage) {
    await navigate(fileUrl(schemaPage));
    const before = await evaluate("Array.from(document.querySelectorAll('table.sortable tbody tr')).map(r => r.cells[4].textContent)");
    await evaluate("Array.from(document.querySelectorAll('table.sortable th')).find(t => t.textContent === 'callees').click()");
    await evaluate("Array.from(document.querySelectorAll('table.sortable th')).find(t => t.textContent === 'callees').click()");
    const after = await evaluate("Array.from(document.querySelectorAll('table.sortable tbody tr')).map(r => Number(r.cells[4].textContent))");
    const sorted = after.every((v, i) => i === 0 || after[i - 1] >= v);
    check(sorted && after.length === before.length, `${schemaPage}: sorting by callees orders the rows (${after.join(',')})`);
    await screenshot('schema', true);
  }
  for (const r of ['dynamic', 'dead', 'cycles']) {
    if (!pages.includes('reports/' + r + '.html')) continue;
    await navigate(fileUrl('reports/' + r + '.html'));
    await screenshot('report-' + r, true);
  }

  // The timeline draws: bars in the index's chart when the snapshot has a
  // timeline, each with its figures on hover, and a legend of its functions.
  await navigate(fileUrl('index.html'));
  const timeline = await evaluate(`(() => {
    const svg = document.querySelector('svg.timeline');
    if (!svg) return null;
    const r = svg.getBoundingClientRect();
    const bars = Array.from(svg.querySelectorAll('rect')).filter(b => b.getBoundingClientRect().height > 0);
    return { w: r.width, h: r.height, bars: bars.length,
             titled: bars.filter(b => b.querySelector('title')).length,
             legend: document.querySelectorAll('ul.chart-legend li').length };
  })()`);
  if (args.expectTimeline)
    check(timeline !== null, 'the index has a timeline chart');
  if (timeline !== null) {
    check(timeline.w > 100 && timeline.h > 50 && timeline.bars > 0 && timeline.titled === timeline.bars && timeline.legend > 0,
      `the index's timeline draws ${timeline.bars} bars with their figures and ${timeline.legend} legend entries`);
    await screenshot('timeline', true);
  }

  // 5. The execution profile of an entry point: the tree expands, the flame
  //    graph zooms on a click, opens the function on a click of the zoomed
  //    frame, highlights what the search box names, and links every frame
  //    to a page that exists.
  const profilePage = pages.find((p) => p.startsWith('profile/') && p !== 'profile/all.html');
  if (profilePage) {
    await navigate(fileUrl(profilePage));
    const closed = await evaluate(`(() => {
      const d = Array.from(document.querySelectorAll('ul.ptree details')).filter(x => !x.open);
      if (!d.length) return null;
      const li = d[0].querySelector('ul li');
      const seen = () => li.getBoundingClientRect().height > 0 && (!li.checkVisibility || li.checkVisibility());
      const hidden = !seen();
      d[0].querySelector('summary').click();
      return { hidden, shown: d[0].open && seen() };
    })()`);
    check(!!closed && closed.hidden && closed.shown, `${profilePage}: a folded frame of the tree expands on a click`);
    const links = await evaluate(`Array.from(document.querySelectorAll('svg.flamegraph a')).map(a => a.getAttribute('href'))`);
    const here = path.dirname(path.join(args.site, profilePage));
    const landing = links.filter((h) => fs.existsSync(path.join(here, h.split('#')[0])));
    check(links.length > 0 && landing.length === links.length, `${profilePage}: ${landing.length} of ${links.length} flame graph frames link to a page that exists`);
    check(await evaluate("!document.querySelector('.flame-tools').hidden"), `${profilePage}: the flame graph's tools are shown when scripts run`);
    const frame = await evaluate(`(() => {
      const gs = Array.from(document.querySelectorAll('svg.flamegraph g.fr')).filter(g => g.querySelector('a') && +g.getAttribute('data-w') < 1);
      gs.sort((a, b) => b.getAttribute('data-w') - a.getAttribute('data-w'));
      const g = gs[0];
      if (!g) return null;
      g.scrollIntoView({ block: 'center' });
      const r = g.querySelector('rect').getBoundingClientRect();
      return { x: r.x + r.width / 2, y: r.y + r.height / 2, name: g.getAttribute('data-n'), index: Array.from(document.querySelectorAll('svg.flamegraph g.fr')).indexOf(g) };
    })()`);
    check(!!frame, `${profilePage}: the flame graph has a frame narrower than the root`);
    if (frame) {
      const before = await currentPath();
      await S('Input.dispatchMouseEvent', { type: 'mousePressed', x: frame.x, y: frame.y, button: 'left', clickCount: 1 });
      await S('Input.dispatchMouseEvent', { type: 'mouseReleased', x: frame.x, y: frame.y, button: 'left', clickCount: 1 });
      await sleep(200);
      const width = await evaluate(`+document.querySelectorAll('svg.flamegraph g.fr')[${frame.index}].querySelector('rect').getAttribute('width')`);
      check((await currentPath()) === before && Math.abs(width - 1200) < 0.01, `${profilePage}: clicking the frame of ${frame.name} zooms to it (width ${width})`);
      await screenshot('profile-zoomed', true);
      const again = await evaluate(`(() => { const g = document.querySelectorAll('svg.flamegraph g.fr')[${frame.index}]; g.scrollIntoView({ block: 'center' }); const r = g.querySelector('rect').getBoundingClientRect(); return [r.x + 20, r.y + r.height / 2]; })()`);
      const loaded = waitFor((m) => m.sessionId === sessionId && m.method === 'Page.loadEventFired', 15000, 'zoomed frame click');
      await S('Input.dispatchMouseEvent', { type: 'mousePressed', x: again[0], y: again[1], button: 'left', clickCount: 1 });
      await S('Input.dispatchMouseEvent', { type: 'mouseReleased', x: again[0], y: again[1], button: 'left', clickCount: 1 });
      let h1 = '';
      try { await loaded; h1 = await evaluate("document.querySelector('h1').textContent"); } catch (e) { h1 = String(e.message); }
      check(h1 === frame.name, `${profilePage}: clicking the zoomed frame opens the page of ${frame.name} (got "${h1}")`);
    }
    await navigate(fileUrl(profilePage));
    await evaluate("document.querySelector('.flame-search').focus()");
    const word = frame ? frame.name.slice(0, 6) : 'app';
    await S('Input.insertText', { text: word });
    await sleep(50);
    const hits = await evaluate("document.querySelectorAll('svg.flamegraph g.fr.hit').length");
    const want = await evaluate(`Array.from(document.querySelectorAll('svg.flamegraph g.fr')).filter(g => g.getAttribute('data-n').toLowerCase().includes(${JSON.stringify(word.toLowerCase())})).length`);
    check(hits > 0 && hits === want, `${profilePage}: the flame graph search highlights the ${hits} frames naming "${word}"`);
    await screenshot('profile', true);
  }

  // 5. Without JavaScript the index still reads: totals and schemas shown,
  //    the search box stays hidden instead of doing nothing.
  await S('Emulation.setScriptExecutionDisabled', { value: true });
  await navigate(fileUrl('index.html'));
  const nojs = await evaluate(`({ hidden: document.getElementById('search-box').hidden,
    text: document.body.innerText.includes('Totals') && document.body.innerText.includes('Schemas'),
    alerts: window.__cgmapAlerts })`);
  check(nojs.hidden && nojs.text, 'without JavaScript the index reads and hides the search box');
  await screenshot('index-nojs', false);
  if (profilePage) {
    await navigate(fileUrl(profilePage));
    const flame = await evaluate(`({ frames: document.querySelectorAll('svg.flamegraph g.fr').length,
      shown: Array.from(document.querySelectorAll('svg.flamegraph g.fr rect')).filter(r => r.getBoundingClientRect().width > 0).length,
      tools: document.querySelector('.flame-tools').hidden })`);
    check(flame.frames > 0 && flame.shown === flame.frames && flame.tools, `${profilePage}: without JavaScript the flame graph shows all ${flame.frames} frames`);
  }
  // A function page without JavaScript: the graph and the tables' rows are
  // not drawn, and the page says so; its source is still there to read.
  if (graphHrefs.length) {
    await navigate(fileUrl(graphHrefs[0]));
    const page = await evaluate(`({ nodes: document.querySelectorAll('.graph svg.layered a.node').length,
      says: document.body.innerText.includes('The graph, tables and links are the page\\'s script\\'s'),
      source: ((document.querySelector('pre.source') || {}).textContent || '').length,
      bodiless: document.body.innerText.includes('No source text') })`);
    check(page.nodes === 0 && page.says && (page.source > 0 || page.bodiless),
      `${graphHrefs[0]}: without JavaScript the page says its graph and tables need the script, and shows its ${page.bodiless ? 'want of a' : page.source + '-character'} source`);
  }
  await S('Emulation.setScriptExecutionDisabled', { value: false });
}

// The tables a page's script built from its data (callers, callees,
// relations; a relation page's readers and writers): a row per entry, each
// function named by the id of the page it links to.
const TABLES_SCRIPT = `(() => {
      const P = JSON.parse(document.getElementById('cgmap-page').textContent);
      const ids = {};
      for (const e of window.CGMAP_INDEX) ids[e[1]] = e[0];
      const out = { want: ['c', 'd', 'r', 'a', 'w'].reduce((n, k) => n + (P[k] || []).length, 0), rows: 0, bad: [] };
      for (const t of document.querySelectorAll('table[data-rows]')) {
        for (const tr of t.tBodies[0].rows) {
          out.rows++;
          const a = tr.cells[0].querySelector('a');
          if (!a) continue;
          const page = new URL(a.href).pathname.split('/').slice(-2).join('/');
          if (ids[decodeURIComponent(page)] !== a.textContent) out.bad.push(a.textContent + ' -> ' + page);
        }
      }
      return out;
    })()`;

const overall = setTimeout(() => {
  console.log('FAIL the browser check took more than 5 minutes');
  failed++;
  finish();
}, 300000);

function finish() {
  clearTimeout(overall);
  console.log(`${passed} passed, ${failed} failed`);
  try { chrome.kill('SIGTERM'); } catch (e) { /* already gone */ }
  setTimeout(() => {
    // Chromium may still be writing its profile as it ends (a loaded
    // machine): a leftover temporary profile is no failure of the site.
    try { fs.rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 }); } catch (e) { /* left behind */ }
    process.exit(failed || passed === 0 ? 1 : 0);
  }, 300);
}

chrome.on('exit', (code) => {
  if (passed + failed === 0) {
    console.log('FAIL chromium exited (' + code + ') before the checks: ' + chromeLog.slice(-2000));
    failed++;
    finish();
  }
});

main().then(finish, (e) => {
  console.log('FAIL ' + e.message);
  failed++;
  finish();
});
