// Scrolls a rendered note to the marked passage with its heading in view: the heading the passage sits under when
// both fit on the screen, else the passage itself, centred. Without this script the `#hl` anchor still scrolls to it.
const mark = document.getElementById('hl');

/** The last heading before `node` in the note, or null. */
function headingBefore(node) {
  const headings = [
    ...document.querySelectorAll('.note-body h1, .note-body h2, .note-body h3, .note-body h4, .note-body h5, .note-body h6'),
  ];
  let found = null;
  for (const h of headings) if (h.compareDocumentPosition(node) & window.Node.DOCUMENT_POSITION_FOLLOWING) found = h;
  return found;
}

function reveal() {
  if (!mark) return;
  const heading = headingBefore(mark);
  const markBox = mark.getBoundingClientRect();
  const room = window.innerHeight * 0.85;
  if (heading && markBox.bottom - heading.getBoundingClientRect().top <= room) {
    window.scrollTo({ top: window.scrollY + heading.getBoundingClientRect().top - 12 });
  } else {
    mark.scrollIntoView({ block: 'center' });
  }
  document.body.dataset.revealed = 'true';
}

// After the browser's own jump to `#hl` (done by the time the page has loaded).
if (document.readyState === 'complete') reveal();
else window.addEventListener('load', reveal);
