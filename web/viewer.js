// Renders one PDF page with pdf.js (served from the installed pdfjs-dist) and highlights the cited quote.
// The quote is found in the page's text items after removing whitespace, so line breaks inside it do not matter.
import * as pdfjs from '/vendor/pdfjs/build/pdf.min.mjs';

pdfjs.GlobalWorkerOptions.workerSrc = '/vendor/pdfjs/build/pdf.worker.min.mjs';

const viewer = document.getElementById('viewer');
const status = document.getElementById('viewer-status');
const canvas = document.getElementById('page-canvas');
const layer = document.getElementById('highlights');

/** Text without whitespace, and NFKC-folded so full-width forms and radicals compare like the index does. */
function flat(text) {
  return text.normalize('NFKC').replace(/\s+/gu, '');
}

/**
 * Which text items hold the quote: the items are concatenated (whitespace removed), the quote is searched there,
 * and every item overlapping the match is returned with the part of it that the match covers. A quote with an inner
 * ellipsis is found part by part, and where only some of its parts are on the page, those. When the whole quote is not
 * on the page, its longest leading part found is used (the quote continues on the next page), else its longest trailing
 * part (it began on the page before).
 */
function itemsForQuote(items, quote) {
  const needle = flat(quote.replace(/^…|…$/gu, ''));
  if (needle === '') return [];
  let joined = '';
  const spans = [];
  for (const item of items) {
    const start = joined.length;
    joined += flat(item.str);
    spans.push({ item, start, end: joined.length });
  }
  // Each item overlapping the match, with the share of its characters the match covers (from, to in 0–1), so a box
  // covers the quote's part of a line rather than the whole line.
  const overlapping = (at, len) =>
    spans
      .filter((s) => s.end > at && s.start < at + len && s.end > s.start)
      .map((s) => ({
        item: s.item,
        from: Math.max(0, at - s.start) / (s.end - s.start),
        to: Math.min(1, (at + len - s.start) / (s.end - s.start)),
      }));
  // A quote with an inner ellipsis (a list item with its lead, a table row under its header): each part found after the
  // one before, and only the parts marked, since what the ellipsis leaves out is not quoted.
  const parts = quote
    .replace(/^…|…$/gu, '')
    .split('…')
    .map(flat)
    .filter((part) => part !== '');
  if (parts.length >= 2) {
    let from = 0;
    const hits = [];
    for (const part of parts) {
      const at = joined.indexOf(part, from);
      if (at < 0) {
        hits.length = 0;
        break;
      }
      hits.push(...overlapping(at, part.length));
      from = at + part.length;
    }
    if (hits.length > 0) return hits;
    // Not all on this page (a lead at the foot of one page, its item on the next): the parts that are, each whole.
    for (const part of parts) {
      const at = part.length >= 6 ? joined.indexOf(part) : -1;
      if (at >= 0) hits.push(...overlapping(at, part.length));
    }
    if (hits.length > 0) return hits;
  }
  for (let len = needle.length; len >= Math.min(needle.length, 6); len = len > 12 ? Math.floor(len * 0.7) : len - 1) {
    const head = joined.indexOf(needle.slice(0, len));
    if (head >= 0) return overlapping(head, len);
    const tail = joined.indexOf(needle.slice(needle.length - len));
    if (tail >= 0) return overlapping(tail, len);
  }
  return [];
}

const prev = document.getElementById('prev-page');
const next = document.getElementById('next-page');
const pageNumber = document.getElementById('page-number');
const openPdf = document.getElementById('open-pdf');
const quote = viewer.dataset.quote ?? '';
let doc = null;
/** The page renders one at a time: a turn waits for the one before. */
let rendering = Promise.resolve();

/** The `/view` address of a page, as the server writes it, so the links also work without this script. */
function pageUrl(number) {
  const params = new window.URLSearchParams({ doc: viewer.dataset.doc, page: String(number) });
  if (quote !== '') params.set('quote', quote);
  return `/view?${params}`;
}

async function render(number) {
  const page = await doc.getPage(Math.min(Math.max(number, 1), doc.numPages));
  const width = Math.min(viewer.clientWidth || 900, 900);
  const base = page.getViewport({ scale: 1 });
  const viewport = page.getViewport({ scale: width / base.width });
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.floor(viewport.width * ratio);
  canvas.height = Math.floor(viewport.height * ratio);
  canvas.style.width = `${Math.floor(viewport.width)}px`;
  canvas.style.height = `${Math.floor(viewport.height)}px`;
  const context = canvas.getContext('2d');
  context.setTransform(ratio, 0, 0, ratio, 0, 0);
  await page.render({ canvasContext: context, canvas, viewport }).promise;
  const text = await page.getTextContent();
  const hits = itemsForQuote(
    text.items.filter((i) => typeof i.str === 'string'),
    quote,
  );
  layer.replaceChildren();
  for (const { item, from, to } of hits) {
    const tx = pdfjs.Util.transform(viewport.transform, item.transform);
    const height = Math.hypot(tx[2], tx[3]);
    const width = item.width * viewport.scale;
    const box = document.createElement('div');
    box.className = 'hl';
    box.style.left = `${tx[4] + from * width}px`;
    box.style.top = `${tx[5] - height}px`;
    box.style.width = `${(to - from) * width}px`;
    box.style.height = `${height * 1.15}px`;
    layer.appendChild(box);
  }
  const shown = page.pageNumber;
  viewer.dataset.page = String(shown);
  viewer.dataset.shown = String(shown);
  viewer.dataset.rendered = 'true';
  viewer.dataset.highlights = String(hits.length);
  pageNumber.textContent = `第 ${shown} / ${doc.numPages} 页 (PDF page)`;
  prev.hidden = shown <= 1;
  next.hidden = shown >= doc.numPages;
  prev.href = pageUrl(Math.max(shown - 1, 1));
  next.href = pageUrl(Math.min(shown + 1, doc.numPages));
  if (openPdf) openPdf.href = `${viewer.dataset.url}#page=${shown}`;
  status.textContent =
    quote === ''
      ? `第 ${shown} / ${doc.numPages} 页`
      : hits.length > 0
        ? `第 ${shown} 页 · 已标出引文 (quote highlighted)`
        : `第 ${shown} 页 · 本页未找到引文 (quote not found on this page)`;
  if (hits.length > 0) layer.firstElementChild?.scrollIntoView({ block: 'center' });
}

/** Turns the page in place (the PDF stays loaded); the address follows, so reloading shows the same page. */
function turn(by) {
  return (event) => {
    event.preventDefault();
    rendering = rendering
      .then(async () => {
        const target = Number(viewer.dataset.page) + by;
        if (target < 1 || target > doc.numPages) return;
        delete viewer.dataset.rendered;
        await render(target);
        window.history.replaceState(null, '', pageUrl(Number(viewer.dataset.page)));
      })
      .catch(fail);
  };
}

function fail(error) {
  viewer.dataset.rendered = 'error';
  status.textContent = `无法显示此页 Cannot show the page: ${error && error.message ? error.message : error}`;
}

async function show() {
  doc = await pdfjs.getDocument({
    url: viewer.dataset.url,
    cMapUrl: '/vendor/pdfjs/cmaps/',
    cMapPacked: true,
    standardFontDataUrl: '/vendor/pdfjs/standard_fonts/',
    isEvalSupported: false,
  }).promise;
  await render(Number(viewer.dataset.page));
  prev.addEventListener('click', turn(-1));
  next.addEventListener('click', turn(1));
}

rendering = show().catch(fail);
