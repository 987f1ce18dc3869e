// attest evidence viewer. Vanilla JS, no dependencies. Server data is only ever
// inserted as text (textContent / Text nodes), never parsed as HTML.
'use strict';

const TOKEN_KEY = 'token';
const state = {
  evidence: new Map(), // key -> evidence item (answers and reviews)
  localKeys: 0, // for items without an evidence_key
  tipOwner: null, // the citation button whose tooltip is shown
  lastCite: null, // the citation that opened the document panel
  docTicket: 0, // ignores stale document responses
};

const $ = (selector) => document.querySelector(selector);

// ---------- DOM helpers ----------
/** Element with attributes and children; strings become Text nodes. */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (!has(value) || value === false) continue;
    if (name === 'class') node.className = value;
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) if (has(child) && child !== false) node.append(child);
  return node;
}

const has = (value) => value !== undefined && value !== null;
const asArray = (value) => (Array.isArray(value) ? value : []);
const cssToken = (value) => String(value).toLowerCase().replace(/[^a-z0-9_-]+/g, '-');
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
const formatValue = (v) => (!has(v) ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v));
const bullets = (items, text, cls) => el('ul', { class: cls }, items.map((x) => el('li', {}, text(x))));

// ---------- API ----------
const apiError = (message, status, body) => Object.assign(new Error(message), { status, body });

function getToken() {
  try { return sessionStorage.getItem(TOKEN_KEY) || ''; } catch { return ''; }
}

function setToken(token) {
  try {
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch { /* storage unavailable: the token is simply not kept */ }
}

async function api(path, { method = 'GET', body } = {}) {
  const headers = { Accept: 'application/json' };
  const init = { method, headers };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(path, init).catch((err) => {
    throw apiError(`Network error: ${err.message}`, 0, null);
  });
  const data = await readBody(res);
  if (!res.ok) throw apiError(errorMessage(res, data), res.status, data);
  return data;
}

async function readBody(res) {
  const text = await res.text();
  try { return text ? JSON.parse(text) : null; } catch { return text; }
}

function errorMessage(res, data) {
  const prefix = `HTTP ${res.status}`;
  if (data && typeof data === 'object') {
    const detail = data.detail || data.message || data.title || data.error;
    if (detail) return `${prefix}: ${detail}`;
  }
  if (typeof data === 'string' && data.trim()) return `${prefix}: ${data.trim().slice(0, 500)}`;
  return `${prefix} ${res.statusText || 'request failed'}`;
}

// ---------- errors ----------
const clearError = () => $('#error').replaceChildren();

function showError(err) {
  const box = $('#error');
  box.replaceChildren(el('p', { class: 'error-message' }, err.message || String(err)));
  const body = err.body && typeof err.body === 'object' ? err.body : null;
  if (!body) return;
  const violations = asArray(body.violations);
  if (violations.length) box.append(bullets(violations, violationText));
  const actions = asArray(body.suggestedActions);
  if (actions.length) box.append(el('p', {}, 'Suggested actions:'), bullets(actions, String));
}

function violationText(v) {
  const where = v.sentence || (typeof v.paragraph === 'string' ? v.paragraph : '');
  const detail = [v.message, where && `“${where}”`].filter(Boolean).join(' — ');
  return `${v.type || 'violation'} (${v.severity || 'error'})${detail ? `: ${detail}` : ''}`;
}

// ---------- status line & settings ----------
async function loadStatus() {
  const line = $('#status-line');
  try {
    line.textContent = statusSummary(await api('/v1/status'));
  } catch (err) {
    line.textContent = `Index status unavailable (${err.message})`;
    if (err.status === 401) $('#settings').open = true;
  }
}

function statusSummary(s) {
  if (!s || typeof s !== 'object') return 'Index status unknown';
  const parts = [];
  if (Number.isFinite(s.documents)) parts.push(plural(s.documents, 'document'));
  if (Number.isFinite(s.chunks)) parts.push(plural(s.chunks, 'chunk'));
  if (has(s.corpus_version)) parts.push(`corpus v${s.corpus_version}`);
  if (s.model) parts.push(`model ${s.model}`);
  if (s.read_only) parts.push('read-only');
  if (s.ingest_running) parts.push('ingest running');
  if (s.index && s.index.consistent === false) parts.push('index inconsistent');
  const flags = asArray(s.injection_flags).length;
  if (flags) parts.push(plural(flags, 'injection flag'));
  return parts.length ? parts.join(' · ') : 'Index status unknown';
}

function bindSettings() {
  const input = $('#token');
  input.value = getToken();
  $('#settings-form').addEventListener('submit', (event) => {
    event.preventDefault();
    setToken(input.value.trim());
    $('#token-note').textContent = input.value.trim() ? 'Token saved for this session.' : 'Token cleared.';
    loadStatus();
  });
}

// ---------- tabs ----------
function bindTabs() {
  const tabs = [$('#tab-ask'), $('#tab-review')];
  tabs.forEach((tab, i) => {
    tab.addEventListener('click', () => selectTab(tab, tabs));
    tab.addEventListener('keydown', (event) => {
      if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
      const step = event.key === 'ArrowRight' ? 1 : tabs.length - 1;
      const next = tabs[(i + step) % tabs.length];
      selectTab(next, tabs);
      next.focus();
    });
  });
}

function selectTab(active, tabs) {
  for (const tab of tabs) {
    const on = tab === active;
    tab.setAttribute('aria-selected', String(on));
    tab.tabIndex = on ? 0 : -1;
    document.getElementById(tab.getAttribute('aria-controls')).hidden = !on;
  }
  hideTooltip();
}

// ---------- citations ----------
function registerEvidence(item) {
  const key = item.evidence_key || `local-${++state.localKeys}`;
  state.evidence.set(key, item);
  return key;
}

/** A citation button; `cls` is "cite" for the contract's citations, "cite-ref" elsewhere. */
function citeButton(item, cls = 'cite') {
  const key = registerEvidence(item);
  return el('button', { type: 'button', class: cls, 'data-id': item.id, 'data-key': key }, item.id || '?');
}

/** A reference to evidence id `id` among `byId`, or plain text when unknown. */
function refNode(id, byId) {
  const item = byId.get(id);
  return item ? citeButton(item, 'cite-ref') : el('span', { class: 'ref-unknown' }, `[${id}]`);
}

function citeFrom(target) {
  const selector = 'button.cite[data-key], button.cite-ref[data-key]';
  return target instanceof Element ? target.closest(selector) : null;
}

function bindCitations() {
  const tip = $('#tooltip');
  const on = (type, handler, target = document) => target.addEventListener(type, handler);
  on('mouseover', (e) => {
    const btn = citeFrom(e.target);
    if (btn && btn !== state.tipOwner) showTooltip(btn);
  });
  on('mouseout', (e) => {
    const btn = citeFrom(e.target);
    const to = e.relatedTarget;
    if (btn && !(to instanceof Node && (btn.contains(to) || tip.contains(to)))) hideTooltip();
  });
  on('mouseleave', (e) => {
    const owner = state.tipOwner;
    if (owner && !(e.relatedTarget instanceof Node && owner.contains(e.relatedTarget))) hideTooltip();
  }, tip);
  on('focusin', (e) => citeFrom(e.target) && showTooltip(citeFrom(e.target)));
  on('focusout', (e) => citeFrom(e.target) && hideTooltip());
  on('keydown', (e) => e.key === 'Escape' && state.tipOwner && hideTooltip());
  on('click', (e) => citeFrom(e.target) && openCitation(citeFrom(e.target)));
  const follow = () => state.tipOwner && positionTooltip(tip, state.tipOwner);
  window.addEventListener('scroll', follow, true);
  window.addEventListener('resize', follow);
}

function setTip(selector, text) {
  const node = $(`#tooltip ${selector}`);
  node.textContent = text || '';
  node.hidden = !text;
}

function showTooltip(btn) {
  const item = state.evidence.get(btn.dataset.key);
  if (!item) return;
  if (state.tipOwner && state.tipOwner !== btn) state.tipOwner.removeAttribute('aria-describedby');
  setTip('.tip-quote', item.quote || item.display || '');
  setTip('.tip-source', item.source || item.title || '');
  setTip('.tip-page', has(item.page) ? `Page ${item.page}` : '');
  setTip('.tip-section', item.section ? `Section: ${item.section}` : '');
  const tip = $('#tooltip');
  tip.hidden = false;
  positionTooltip(tip, btn);
  btn.setAttribute('aria-describedby', 'tooltip');
  state.tipOwner = btn;
}

function hideTooltip() {
  $('#tooltip').hidden = true;
  if (state.tipOwner) state.tipOwner.removeAttribute('aria-describedby');
  state.tipOwner = null;
}

/** Fixed-position tooltip just below the button (above when there is no room). */
function positionTooltip(tip, btn) {
  const r = btn.getBoundingClientRect();
  const height = tip.offsetHeight;
  const maxLeft = document.documentElement.clientWidth - tip.offsetWidth - 8;
  let top = r.bottom;
  if (top + height > window.innerHeight - 8 && r.top - height > 8) top = r.top - height;
  tip.style.left = `${Math.max(8, Math.min(r.left, maxLeft))}px`;
  tip.style.top = `${top}px`;
}

// ---------- document panel ----------
async function openCitation(btn) {
  const item = state.evidence.get(btn.dataset.key);
  if (!item) return;
  state.lastCite = btn;
  hideTooltip();
  await openDocument(item);
}

async function openDocument(item) {
  if (!item.doc_id) return showError(new Error(`Evidence ${item.id || ''} names no document.`));
  const ticket = ++state.docTicket;
  const params = new URLSearchParams();
  if (Number.isInteger(item.start)) params.set('start', item.start);
  if (Number.isInteger(item.end)) params.set('end', item.end);
  const query = params.toString();
  const panel = $('#document');
  panel.setAttribute('aria-busy', 'true');
  try {
    const doc = await api(`/v1/documents/${encodeURIComponent(item.doc_id)}${query ? `?${query}` : ''}`);
    if (ticket === state.docTicket) renderDocument(doc || {}, item);
  } catch (err) {
    if (ticket === state.docTicket) showError(err);
  } finally {
    if (ticket === state.docTicket) panel.removeAttribute('aria-busy');
  }
}

/** A new answer or review: the panel stops showing a document cited by the previous one. */
function clearDocument() {
  state.docTicket += 1;
  state.lastCite = null;
  const panel = $('#document');
  panel.hidden = true;
  panel.removeAttribute('aria-busy');
  $('#document-text').replaceChildren();
  $('#document-empty').hidden = false;
}

function renderDocument(doc, item) {
  $('#document-empty').hidden = true;
  const panel = $('#document');
  panel.hidden = false;
  $('#document-title').textContent = doc.title || item.title || doc.source || item.source || 'Document';
  renderMeta(doc, item);
  const mark = renderExcerpt(doc, item);
  panel.focus({ preventScroll: true });
  if (mark) mark.scrollIntoView({ block: 'center' });
}

function renderMeta(doc, item) {
  const pick = (name) => (has(doc[name]) ? doc[name] : item[name]);
  const rows = [['Evidence', item.id], ['Source', pick('source')], ['Page', pick('page')],
    ['Section', pick('section')], ['Line', item.line], ['File bytes', fileBytes(doc, item)],
    ['Read by', item.ocr ? ocrLabel(item.ocr) : '']].filter(([, value]) => has(value) && value !== '');
  const pairs = rows.flatMap(([name, value]) => [el('dt', {}, name), el('dd', {}, String(value))]);
  $('#document-meta').replaceChildren(...pairs);
}

/**
 * The cited bytes of the file on disk ("317–548", the bytes whose rendering is the quote),
 * or why there are none. The document view (today's index) speaks before the item.
 */
function fileBytes(doc, item) {
  const from = has(doc.file_start) || has(doc.file_span_absent) ? doc : item;
  if (Number.isInteger(from.file_start) && Number.isInteger(from.file_end)) {
    return `${from.file_start}–${from.file_end}`;
  }
  const why = from.file_span_absent;
  return why ? `none (${String(why).replace(/_/g, ' ')})` : '';
}

/** Excerpt as text with the cited span inside <mark id="highlight">; returns the mark. */
function renderExcerpt(doc, item) {
  const box = $('#document-text');
  box.replaceChildren();
  const text = typeof doc.excerpt === 'string' ? doc.excerpt : '';
  const [start, end] = spanIn(text, doc, item);
  let mark = null;
  if (doc.truncated_before) box.append(el('span', { class: 'ellipsis' }, '… '));
  if (start < 0) {
    box.append(text);
  } else {
    mark = el('mark', { id: 'highlight' }, text.slice(start, end));
    box.append(text.slice(0, start), mark, text.slice(end));
  }
  if (doc.truncated_after) box.append(el('span', { class: 'ellipsis' }, ' …'));
  if (!mark) box.prepend(el('p', { class: 'hint' }, 'The cited passage was not found in this excerpt.'));
  return mark;
}

function spanIn(text, doc, item) {
  const [s, e] = [doc.utf16_start, doc.utf16_end];
  if (Number.isInteger(s) && Number.isInteger(e) && s >= 0 && s <= e && e <= text.length) return [s, e];
  const quote = doc.quote || item.quote || '';
  const at = quote ? text.indexOf(quote) : -1;
  return at >= 0 ? [at, at + quote.length] : [-1, -1];
}

// ---------- ask ----------
async function runBusy(button, region, work) {
  const label = button.textContent;
  button.disabled = true;
  button.textContent = 'Working…';
  region.setAttribute('aria-busy', 'true');
  try {
    await work();
  } catch (err) {
    showError(err);
  } finally {
    button.disabled = false;
    button.textContent = label;
    region.removeAttribute('aria-busy');
  }
}

async function ask(event) {
  event.preventDefault();
  clearError();
  const question = $('#question').value.trim();
  if (!question) return showError(new Error('Type a question first.'));
  await runBusy($('#ask-button'), $('#answer-region'), async () => {
    renderAnswer(await api('/v1/ask', { method: 'POST', body: { question } }));
  });
}

function renderAnswer(a) {
  clearDocument();
  const status = String(a.status || 'unknown');
  const statusNode = $('#answer-status');
  statusNode.textContent = status;
  statusNode.className = `badge status-${cssToken(status)}`;
  $('#confidence').textContent = a.confidence ? String(a.confidence) : '—';
  const byId = new Map(asArray(a.evidence).map((item) => [item.id, item]));
  renderSentences(a, byId);
  renderSection('#conflicts', asArray(a.conflicts), (c) => conflictNode(c, byId));
  renderSection('#missing', asArray(a.missing_evidence), (m) => el('li', {}, String(m)));
  renderSection('#evidence-list', asArray(a.evidence), evidenceEntry);
  renderSection('#rejected', asArray(a.rejected), rejectedNode);
  $('#rejected-count').textContent = `(${asArray(a.rejected).length})`;
  renderGate(a.status === 'answered' ? a.gate : null, a.status);
  $('#answer-details').hidden = false;
}

/** Fills list `selector` and shows its enclosing section only when there are items. */
function renderSection(selector, items, render) {
  const list = $(selector);
  list.replaceChildren(...items.map(render));
  list.closest('section').hidden = items.length === 0;
}

function renderSentences(a, byId) {
  const root = $('#answer');
  root.replaceChildren();
  const sentences = asArray(a.sentences);
  if (!sentences.length) {
    root.append(el('p', { class: 'answer-note' }, emptyAnswerNote(a)));
    return;
  }
  // Recover paragraph breaks ("\n\n" in `answer`) between sentences.
  const text = typeof a.answer === 'string' ? a.answer : '';
  let pos = 0;
  let para = el('p');
  for (const s of sentences) {
    const at = text.indexOf(s.text, pos);
    if (at >= 0) {
      if (text.slice(pos, at).includes('\n\n') && para.childNodes.length) {
        root.append(para);
        para = el('p');
      }
      pos = at + s.text.length;
    }
    if (para.childNodes.length) para.append(' ');
    para.append(sentenceNode(s, byId));
  }
  root.append(para);
}

function emptyAnswerNote(a) {
  if (a.status === 'rejected_input') return `The question was not accepted. ${a.reason || ''}`.trim();
  if (a.answer) return a.answer;
  return 'No authoritative evidence was found, so nothing is stated.';
}

function sentenceNode(s, byId) {
  const ids = asArray(s.citations);
  const frag = document.createDocumentFragment();
  frag.append(el('span', { class: 'sentence' }, stripMarker(String(s.text || ''), ids)));
  for (const id of ids) {
    const item = byId.get(id);
    frag.append(' ', item ? citeButton(item) : el('span', { class: 'ref-unknown' }, `[${id}]`));
  }
  return frag;
}

// The trailing "[E1, E2]" marker the buttons replace; removed only when it lists
// exactly the sentence's citations (quoted text may contain look-alikes).
const MARKER = /\s*\[([A-Za-z]+\d+(?:\s*,\s*[A-Za-z]+\d+)*)\](?=[.!?;:]?["'”’)]?\s*$)/;

function stripMarker(text, ids) {
  const m = MARKER.exec(text);
  if (!m) return text;
  const found = m[1].split(',').map((t) => t.trim()).sort();
  const want = [...ids].sort();
  if (found.length !== want.length || found.some((id, i) => id !== want[i])) return text;
  return text.slice(0, m.index) + text.slice(m.index + m[0].length);
}

/** A figure key as a reader writes it: "7 year" → "7 years", "5000 dollar" → "$5000". */
function keyWords(key) {
  const m = /^(\S+) (\S+)$/.exec(String(key));
  if (!m) return String(key);
  const [, v, u] = m;
  const sign = { dollar: '$', euro: '€', pound: '£' }[u];
  if (sign) return `${sign}${v}`;
  if (u === 'percent') return `${v}%`;
  if (v === '1') return `${v} ${u}`;
  return u === 'century' ? `${v} centuries` : `${v} ${u}s`;
}

const STANDING = {
  governs: 'governs', also_applies: 'also applies', superseded_by: 'superseded',
  earlier: 'earlier, at equal authority', lower_authority: 'lower authority',
  summary: 'summary, does not control', former: 'a former value, no longer in force',
  undecided: 'no rule decides',
};

/** A difference between sources: what each side says (its source type and the figure as
 *  the document writes it), the ruling on which governs, and every side's standing. */
function conflictNode(c, byId) {
  const ids = asArray(c.ids);
  const figures = asArray(c.figures);
  const ruling = c.ruling && typeof c.ruling === 'object' ? c.ruling : null;
  const sides = ruling ? asArray(ruling.sides) : [];
  const li = el('li', { class: 'conflict' });
  const head = el('p', { class: 'conflict-sides' }, 'Sources differ: ');
  ids.forEach((id, i) => {
    if (i) head.append('; ');
    const side = sides.find((s) => s.id === id);
    const says = side ? `(${side.source_type}) says ${side.states}`
      : `says ${asArray(figures[i]).map(keyWords).join(', ')}`;
    head.append(refNode(id, byId), ` ${says}`);
  });
  li.append(head);
  if (!ruling) return li;
  li.append(el('p', { class: 'ruling' }, `Which applies: ${String(ruling.summary || '')}`));
  const list = el('ul', { class: 'ruling-sides plain-list' });
  for (const s of sides) {
    const since = s.effective_from ? `, effective ${s.effective_from}` : '';
    const standing = STANDING[s.standing] || String(s.standing);
    list.append(el('li', { class: `side standing-${cssToken(String(s.standing))}` },
      refNode(s.id, byId), ` ${s.source} (${s.source_type}${since}): ${s.states}: ${standing}`));
  }
  li.append(list);
  return li;
}

function evidenceEntry(item) {
  const li = el('li', { class: 'evidence-item' },
    el('div', { class: 'item-head' }, citeButton(item, 'cite-ref'), ' ',
      el('span', { class: 'item-source' }, sourceLabel(item))),
    el('blockquote', { class: 'quote' }, item.quote || item.display || ''));
  if (item.evidence_key) li.append(checkControl(item.evidence_key));
  return li;
}

function sourceLabel(item) {
  const parts = [item.source || item.title || 'unknown source'];
  if (has(item.page)) parts.push(`page ${item.page}`);
  if (has(item.line)) parts.push(`line ${item.line}`);
  if (item.section) parts.push(`§ ${item.section}`);
  if (item.ocr) parts.push(ocrLabel(item.ocr));
  return parts.join(' · ');
}

/** "OCR (tesseract 5.3.0)", with the quote's low-confidence words when there are any. */
function ocrLabel(ocr) {
  const low = (ocr.low_confidence || []).slice(0, 8);
  const words = low.length ? `; low confidence: ${low.map((w) => `"${w}"`).join(', ')}` : '';
  return `OCR (${ocr.engine || 'unknown engine'}${words})`;
}

function checkControl(key) {
  const result = el('span', { class: 'check-result', 'aria-live': 'polite' });
  const button = el('button', { type: 'button', class: 'link-button check-evidence' }, 'check');
  button.addEventListener('click', () => checkEvidence(key, result));
  return el('div', { class: 'item-check' }, button, ' ', result);
}

async function checkEvidence(key, out) {
  out.textContent = 'checking…';
  out.dataset.state = '';
  try {
    const r = (await api(`/v1/evidence/${encodeURIComponent(key)}`)) || {};
    const holds = r.status === 'holds';
    out.textContent = holds ? 'holds' : `drift: ${String(r.status || 'unknown').replace(/_/g, ' ')}`;
    out.dataset.state = holds ? 'ok' : 'drift';
  } catch (err) {
    out.textContent = `check failed (${err.message})`;
    out.dataset.state = 'error';
  }
}

function rejectedNode(r) {
  const where = [r.source, has(r.line) ? `line ${r.line}` : ''].filter(Boolean).join(' · ');
  return el('li', { class: 'rejected-item' },
    el('div', { class: 'item-head' },
      el('span', { class: 'rej-id' }, r.id || ''), ' ',
      el('span', { class: 'rej-reason' }, r.reason || 'rejected'), ' ',
      el('span', { class: 'item-source' }, where)),
    r.rationale ? el('p', { class: 'rej-rationale' }, r.rationale) : null,
    el('blockquote', { class: 'quote' }, r.quote || ''));
}

function renderGate(gate, status) {
  const root = $('#gate');
  root.replaceChildren();
  // An abstention has no text, so there is nothing the gate could have passed.
  if (status && status !== 'answered') return root.append(el('p', {}, 'No answer text: nothing to check.'));
  if (!gate || typeof gate !== 'object') return root.append(el('p', {}, 'No gate result.'));
  const density = Number.isFinite(gate.density_per_100_words) ? gate.density_per_100_words.toFixed(1) : '—';
  root.append(
    el('p', { class: gate.passed ? 'gate-pass' : 'gate-fail' }, gate.passed ? 'Passed' : 'Failed'),
    el('p', { class: 'gate-stats' },
      `${gate.citations ?? '—'} citations · ${gate.paragraphs ?? '—'} paragraphs · ` +
      `${gate.words ?? '—'} words · density ${density} per 100 words`));
  const violations = asArray(gate.violations);
  if (violations.length) root.append(bullets(violations, violationText, 'violations'));
}

// ---------- review ----------
function parseChecklist(text) {
  if (!text.trim()) throw new Error('Paste a checklist (JSON) first.');
  let value;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`The checklist is not valid JSON: ${err.message}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error('The checklist must be a JSON object with a "requirements" array.');
  }
  return value;
}

const parseScope = (text) => text.split(',').map((s) => s.trim()).filter(Boolean);

async function review(event) {
  event.preventDefault();
  clearError();
  let checklist;
  try { checklist = parseChecklist($('#checklist').value); } catch (err) { return showError(err); }
  const scope = parseScope($('#review-scope').value);
  const body = scope.length ? { checklist, scope } : { checklist };
  await runBusy($('#review-button'), $('#review-region'), async () => {
    renderReview(await api('/v1/review', { method: 'POST', body }));
  });
}

function renderReview(r) {
  r = r || {};
  clearDocument();
  $('#review-summary').textContent = reviewSummary(r);
  const requirements = asArray(r.requirements);
  const root = $('#review-results');
  root.replaceChildren(...requirements.map(requirementNode));
  if (!requirements.length) root.append(el('p', { class: 'answer-note' }, 'No requirements returned.'));
}

function reviewSummary(r) {
  const s = r.summary || {};
  const n = (k) => (Number.isFinite(s[k]) ? s[k] : 0);
  const parts = [`${n('evidenced')} evidenced`, `${n('missing')} missing`, `${n('conflict')} conflict`,
    `${n('needs_review')} needs review`];
  if (Number.isFinite(s.mandatory_open)) parts.push(`${s.mandatory_open} mandatory open`);
  if (Number.isFinite(s.checks)) parts.push(`${n('checks_failed')}/${s.checks} checks failed`);
  const docs = asArray(r.documents).length;
  if (docs) parts.push(plural(docs, 'document'));
  const name = r.checklist && r.checklist.name ? `${r.checklist.name}: ` : '';
  return name + parts.join(' · ');
}

function requirementNode(req) {
  const byId = new Map(asArray(req.evidence).map((item) => [item.id, item]));
  const status = String(req.status || 'unknown');
  const node = el('article', { class: `requirement status-${cssToken(status)}` },
    requirementHeader(req, status),
    el('p', { class: 'req-text' }, req.text || ''),
    req.reason ? el('p', { class: 'req-reason' }, req.reason) : null);
  appendList(node, 'Fields', 'fields', req.fields, (f) => fieldNode(f, byId));
  appendList(node, 'Checks', 'checks', req.checks, (c) => checkNode(c, byId));
  appendList(node, 'Missing fields', 'missing-fields', req.missing_fields, (m) => el('li', {}, String(m)));
  appendList(node, 'Rejected values', 'rejected-values', req.rejected_values, (v) => rejectedValue(v, byId));
  node.append(evidenceRow(asArray(req.evidence)));
  return node;
}

function requirementHeader(req, status) {
  return el('header', { class: 'req-header' },
    el('h3', { class: 'req-title' },
      el('span', { class: 'req-id' }, req.id || '?'), ' ',
      el('span', { class: 'req-category' }, req.category || '')),
    el('span', { class: `req-status badge status-${cssToken(status)}` }, status),
    el('span', { class: 'req-mandatory badge' }, req.mandatory === false ? 'optional' : 'mandatory'));
}

function appendList(node, title, cls, items, render) {
  const list = asArray(items);
  if (!list.length) return;
  node.append(el('h4', {}, title), el('ul', { class: `plain-list ${cls}` }, list.map(render)));
}

function fieldNode(f, byId) {
  const li = el('li', { class: 'field' },
    el('span', { class: 'field-name' }, f.name || '?'), ' = ',
    el('span', { class: 'field-value' }, formatValue(f.value)));
  if (has(f.raw)) li.append(' ', el('span', { class: 'field-raw' }, `(${f.raw})`));
  if (f.evidence) li.append(' ', refNode(f.evidence, byId));
  return li;
}

function checkNode(c, byId) {
  const status = String(c.status || 'unknown');
  const li = el('li', { class: `check check-${cssToken(status)}` },
    el('span', { class: 'check-kind' }, c.kind || 'check'), ' · ',
    el('span', { class: 'check-field' }, c.field || ''), ': ',
    el('span', { class: 'check-status' }, status));
  if (c.severity) li.append(` (${c.severity})`);
  if (c.note) li.append(' — ', el('span', { class: 'check-note' }, c.note));
  const refs = [...new Set(asArray(c.values).map((v) => v && v.evidence).filter(Boolean))];
  for (const id of refs) li.append(' ', refNode(id, byId));
  return li;
}

function rejectedValue(v, byId) {
  const li = el('li', { class: 'rejected-value' },
    el('span', { class: 'field-name' }, v.name || '?'), ': ',
    el('span', { class: 'field-raw' }, `“${formatValue(v.raw)}”`), ' — ',
    el('span', { class: 'rej-reason' }, v.reason || 'rejected'));
  if (v.note) li.append(` (${v.note})`);
  if (v.evidence) li.append(' ', refNode(v.evidence, byId));
  return li;
}

function evidenceRow(items) {
  const row = el('div', { class: 'req-evidence' }, el('span', { class: 'meta-label' }, 'Evidence'), ' ');
  if (!items.length) row.append(el('span', { class: 'hint' }, 'no verified evidence'));
  items.forEach((item, i) => row.append(i ? ' ' : '', citeButton(item)));
  return row;
}

// ---------- start ----------
function init() {
  bindSettings();
  bindTabs();
  bindCitations();
  $('#ask-form').addEventListener('submit', ask);
  $('#review-form').addEventListener('submit', review);
  $('#document-back').addEventListener('click', () => {
    if (state.lastCite && state.lastCite.isConnected) state.lastCite.focus();
  });
  loadStatus();
}

init();
