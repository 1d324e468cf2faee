package htmlview

// The page's style and script, inline so that the file needs nothing else.
// The script builds the SVG as markup (innerHTML on the <svg> elements
// parses it into the SVG namespace), draws only what lies in view, and
// redraws on zoom, pan and step. Everything is placed on one axis, true
// time or (for a replay) steps: an element's position on the step axis
// comes from the sequence numbers of its records (Data.Steps).

const pageCSS = `
body { font: 13px/1.4 system-ui, sans-serif; margin: 0 16px 24px; color: #222; }
h1 { font-size: 18px; margin: 12px 0 4px; }
h2 { font-size: 14px; margin: 14px 0 4px; }
#summary, #meta, .hint, #msgnote, #holdnote { color: #555; }
#meta { margin-top: 12px; font-size: 11px; }
#controls { margin: 8px 0; }
#controls button { font: inherit; margin-right: 4px; }
#controls button.on { background: #3465a4; color: #fff; border: 1px solid #3465a4; }
#jump button { font-size: 11px; }
#legend { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 11px; color: #333; margin: 4px 0 0; }
#legend span { display: inline-flex; align-items: center; gap: 4px; }
#legend svg { width: 26px; height: 14px; border: none; cursor: default; display: inline; }
svg.view { display: block; width: 100%; border: 1px solid #ddd; background: #fff; cursor: grab; user-select: none; }
svg.view.dragging { cursor: grabbing; }
#stepper { border: 1px solid #ddd; padding: 6px 10px; margin: 8px 0; background: #fafafa; }
#stepper button { font: inherit; }
#stepper input[type=range] { width: 40%; vertical-align: middle; }
#stepcmd { font-family: ui-monospace, monospace; font-weight: bold; }
#states { border-collapse: collapse; margin: 6px 0; width: 100%; }
#states td { border-top: 1px solid #e4e4e4; padding: 2px 8px 2px 0; vertical-align: top; }
#states td.state { font-family: ui-monospace, monospace; font-size: 12px; white-space: pre-wrap; }
#states tr.changed td.state { background: #fff4c2; }
#steprecs { font-size: 11px; max-height: 14em; overflow: auto; background: #fff; border: 1px solid #eee; padding: 4px; margin: 0; }
.row-label { font-size: 11px; fill: #333; }
.axis text { font-size: 10px; fill: #666; }
.axis line { stroke: #eee; }
.axis text.step-label { fill: #333; }
.lane { stroke: #bbb; }
.hold { stroke: #0003; }
.down { fill: #9995; }
.paused { fill: #8e44ad33; stroke: #8e44ad; stroke-dasharray: 3 2; }
.write { stroke: #555; stroke-width: 1; }
.write.stale { stroke: #c00; stroke-width: 2; }
.write.rejected { stroke: #e67e22; stroke-width: 2; }
.partition { fill: #f5c54233; }
.violation { fill: #e0242480; stroke: #c00; stroke-width: 1; }
.crash { stroke: #c00; stroke-width: 2; }
.restart { fill: #2a2; }
.gap { fill: url(#hatch); stroke: #999; stroke-dasharray: 2 2; }
.cursor { fill: #3465a422; stroke: #3465a4; stroke-width: 1; pointer-events: none; }
.msg { stroke: #3465a4; stroke-width: 1; }
.msg.dropped { stroke: #c00; stroke-dasharray: 3 2; }
.msg.unknown { stroke: #888; stroke-dasharray: 1 2; }
.msg.dup { stroke: #75507b; }
.selfmsg { fill: #3465a4; }
.dropx { stroke: #c00; stroke-width: 1.5; }
.msg:hover, .hold:hover, .violation:hover { stroke-width: 3; }
#tip { position: fixed; pointer-events: none; background: #222e; color: #fff; padding: 4px 7px; border-radius: 3px;
  font-size: 12px; white-space: pre; display: none; z-index: 10; }
#errors { color: #c00; white-space: pre-wrap; }
`

const pageJS = `
(function () {
"use strict";
var errors = document.getElementById("errors");
window.addEventListener("error", function (ev) { errors.textContent += "script error: " + ev.message + "\n"; });
var D = JSON.parse(document.getElementById("data").textContent);
// Every list is an array, also when a producer wrote null.
["rows", "holds", "down", "crashes", "restarts", "partitions", "violations", "msgs", "gaps", "steps", "paused", "writes"].forEach(function (k) { if (!Array.isArray(D[k])) D[k] = []; });
var tl = document.getElementById("timeline"), sq = document.getElementById("sequence"), tip = document.getElementById("tip");
var LEFT = 70, RIGHT = 16, ROW = 22, AXIS = 20, LANE = 34, MAXMSG = 4000;
var rows = D.rows.length;
var S = D.steps, NS = S.length;
var mode = NS > 0 ? "step" : "time";
var sel = NS > 0 ? 0 : -1;
var view = {u0: 0, u1: 1};
var palette = ["#4e79a7", "#f28e2b", "#59a14f", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#e15759"];
var DEFS = '<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#f4f4f4"></rect><line x1="0" y1="0" x2="0" y2="6" stroke="#aaa" stroke-width="2"></line></pattern>' +
  '<marker id="head" viewBox="0 0 6 6" refX="6" refY="3" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0 0L6 3L0 6Z" fill="#3465a4"></path></marker>' +
  '<marker id="headdup" viewBox="0 0 6 6" refX="6" refY="3" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0 0L6 3L0 6Z" fill="#75507b"></path></marker></defs>';

function esc(s) { return String(s).replace(/[&<>"]/g, function (c) { return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]; }); }
function num(n) { return Number(n).toLocaleString("en-US"); }
function ms(ns) { return (ns / 1e6).toFixed(6) + " ms"; }
function dur(ns) {
  var a = Math.abs(ns);
  if (a >= 1e9) return (ns / 1e9).toFixed(3) + " s";
  if (a >= 1e6) return (ns / 1e6).toFixed(3) + " ms";
  if (a >= 1e3) return (ns / 1e3).toFixed(3) + " \u00b5s";
  return ns + " ns";
}
function plural(n, one, many) { return num(n) + " " + (n === 1 ? one : many); }

// The axis: true time (ns) or steps (step k fills [k, k+1)).
function full() { return mode === "step" ? [0, Math.max(NS, 1)] : [D.start, Math.max(D.end, D.start + 1)]; }
// stepPos places record number q: its step, and its place among the
// step's records.
function stepPos(q) {
  if (!(q > 0)) return 0;
  var lo = 0, hi = NS;
  while (lo < hi) { var mid = (lo + hi) >> 1; if (S[mid].q >= q) hi = mid; else lo = mid + 1; }
  if (lo >= NS) return NS;
  var first = lo > 0 ? S[lo - 1].q : 0, n = S[lo].q - first;
  return lo + (n > 0 ? (q - first - 0.5) / n : 0.5);
}
function at(t, q) { return mode === "step" ? stepPos(q) : t; }
function width() { return Math.max(300, tl.clientWidth || 900); }
function x(u) { return LEFT + (u - view.u0) / (view.u1 - view.u0) * (width() - LEFT - RIGHT); }
function uAt(px) { return view.u0 + (px - LEFT) / (width() - LEFT - RIGHT) * (view.u1 - view.u0); }
function inView(a, b) { return Math.max(a, b) >= view.u0 && Math.min(a, b) <= view.u1; }
function clampX(v) { return Math.max(LEFT - 2, Math.min(width() - RIGHT + 2, v)); }
function rect(cls, k, i, u0, u1, y, h, extra) {
  var x0 = clampX(x(Math.min(u0, u1))), x1 = clampX(x(Math.max(u0, u1)));
  return '<rect class="' + cls + '" data-k="' + k + '" data-i="' + i + '" x="' + x0.toFixed(1) + '" y="' + y + '" width="' + Math.max(1, x1 - x0).toFixed(1) + '" height="' + h + '"' + (extra || "") + '></rect>';
}
// label keeps a tick's text inside the plot: the first and last ticks are
// anchored at their inner side, never cut by the edge.
function label(X, y, text, cls, k, i) {
  var anchor = X > width() - RIGHT - 36 ? "end" : X < LEFT + 24 ? "start" : "middle";
  return '<text' + (cls ? ' class="' + cls + '"' : '') + (k ? ' data-k="' + k + '" data-i="' + i + '"' : '') + ' x="' + X.toFixed(1) + '" y="' + y + '" text-anchor="' + anchor + '">' + esc(text) + '</text>';
}

function timeTicks(h) {
  var span = view.u1 - view.u0, raw = span / 8, p = Math.pow(10, Math.floor(Math.log10(raw))), step = p;
  [1, 2, 5, 10].forEach(function (m) { if (p * m <= raw) step = p * m; });
  step = Math.max(step, 1); // true time is in whole nanoseconds
  var unit = step >= 1e9 ? [1e9, "s"] : step >= 1e6 ? [1e6, "ms"] : step >= 1e3 ? [1e3, "\u00b5s"] : [1, "ns"];
  var digits = Math.max(0, Math.ceil(-Math.log10(step / unit[0]) - 1e-9));
  var out = '<g class="axis">';
  for (var t = Math.ceil(view.u0 / step) * step; t <= view.u1 + step * 1e-9; t += step) {
    var X = x(t);
    out += '<line x1="' + X.toFixed(1) + '" x2="' + X.toFixed(1) + '" y1="0" y2="' + (h - AXIS) + '"></line>' + label(X, h - 6, (t / unit[0]).toFixed(digits) + " " + unit[1]);
  }
  return out + '</g>';
}

function stepTicks(h) {
  var out = '<g class="axis">', px = (width() - LEFT - RIGHT) / (view.u1 - view.u0);
  var every = 1;
  while (every * px < 22) every *= every === 1 ? 2 : every === 2 ? 2.5 : 2;
  every = Math.round(every);
  for (var k = Math.max(0, Math.floor(view.u0)); k <= Math.min(NS, Math.ceil(view.u1)); k++) {
    var X = x(k);
    out += '<line x1="' + X.toFixed(1) + '" x2="' + X.toFixed(1) + '" y1="0" y2="' + (h - AXIS) + '"></line>';
    if (k < NS && k % every === 0 && inView(k + 0.5, k + 0.5)) out += label(x(k + 0.5), h - 6, String(k + 1), "step-label", "s", k);
  }
  return out + '</g>';
}
function ticks(h) { return mode === "step" ? stepTicks(h) : timeTicks(h); }

function cursor(h) {
  if (sel < 0) return "";
  if (mode === "step") return inView(sel, sel + 1) ? rect("cursor", "", "", sel, sel + 1, 0, h - AXIS) : "";
  var X = x(S[sel].t);
  return inView(S[sel].t, S[sel].t) ? '<rect class="cursor" x="' + (X - 1).toFixed(1) + '" y="0" width="2" height="' + (h - AXIS) + '"></rect>' : "";
}

// gaps: the stretches whose messages or holds the file leaves out (time
// axis only: a replay keeps everything).
function gaps(what, y, h) {
  var out = "";
  if (mode !== "time") return out;
  D.gaps.forEach(function (g, i) {
    if (g.w === what && inView(g.s, g.e)) out += rect("gap", "g", i, g.s, g.e, y, h);
  });
  return out;
}

function drawTimeline() {
  var h = rows * ROW + AXIS, w = width(), out = DEFS + ticks(h);
  D.partitions.forEach(function (p, i) {
    var a = at(p.s, p.q), b = at(p.e, p.eq);
    if (inView(a, b)) out += rect("partition", "p", i, a, b, 0, rows * ROW);
  });
  out += gaps("holds", 0, rows * ROW);
  for (var r = 0; r < rows; r++) out += '<text class="row-label" x="4" y="' + (r * ROW + 15) + '">' + esc(D.rows[r]) + '</text>';
  D.down.forEach(function (d, i) {
    var a = at(d.s, d.q), b = at(d.e, d.eq);
    if (inView(a, b)) out += rect("down", "d", i, a, b, d.n * ROW + 2, ROW - 4);
  });
  D.paused.forEach(function (d, i) {
    var a = at(d.s, d.q), b = at(d.e, d.eq);
    if (inView(a, b)) out += rect("paused", "z", i, a, b, d.n * ROW + 2, ROW - 4);
  });
  D.holds.forEach(function (hd, i) {
    var a = at(hd.s, hd.q), b = at(hd.e, hd.eq);
    if (inView(a, b)) out += rect("hold", "h", i, a, b, hd.n * ROW + 4, ROW - 8, ' fill="' + palette[hd.n % palette.length] + '"');
  });
  D.writes.forEach(function (wr, i) { // a tick on the writer's row; stale and rejected ones stand out
    var u = at(wr.t, wr.q);
    if (!inView(u, u)) return;
    var X = x(u).toFixed(1), cls = /^stale/.test(wr.t2) ? "write stale" : /^rejected/.test(wr.t2) ? "write rejected" : "write";
    var y0 = wr.n * ROW + (cls === "write" ? 6 : 1), y1 = wr.n * ROW + ROW - (cls === "write" ? 6 : 1);
    out += '<line class="' + cls + '" data-k="w" data-i="' + i + '" x1="' + X + '" x2="' + X + '" y1="' + y0 + '" y2="' + y1 + '"></line>';
  });
  D.violations.forEach(function (v, i) {
    var a = at(v.s, v.q), b = Math.max(a, at(v.e, v.eq));
    if (!inView(a, b)) return;
    v.o.forEach(function (n) {
      if (n < 0 || n >= rows) return;
      var x0 = clampX(x(a)), x1 = clampX(x(b));
      out += '<rect class="violation" data-k="v" data-i="' + i + '" x="' + (x0 - 1).toFixed(1) + '" y="' + (n * ROW + 1) + '" width="' + Math.max(3, x1 - x0 + 2).toFixed(1) + '" height="' + (ROW - 2) + '"></rect>';
    });
  });
  D.crashes.forEach(function (c, i) {
    var u = at(c.t, c.q);
    if (!inView(u, u)) return;
    var X = x(u), Y = c.n * ROW + ROW / 2;
    out += '<path class="crash" data-k="c" data-i="' + i + '" d="M' + (X - 4) + ' ' + (Y - 4) + 'L' + (X + 4) + ' ' + (Y + 4) + 'M' + (X + 4) + ' ' + (Y - 4) + 'L' + (X - 4) + ' ' + (Y + 4) + '"></path>';
  });
  D.restarts.forEach(function (c, i) {
    var u = at(c.t, c.q);
    if (!inView(u, u)) return;
    var X = x(u), Y = c.n * ROW + ROW / 2;
    out += '<path class="restart" data-k="r" data-i="' + i + '" d="M' + X + ' ' + (Y - 5) + 'L' + (X + 5) + ' ' + Y + 'L' + X + ' ' + (Y + 5) + 'Z"></path>';
  });
  out += cursor(h);
  tl.setAttribute("viewBox", "0 0 " + w + " " + h);
  tl.setAttribute("height", h);
  tl.innerHTML = out;
  var gh = D.gaps.filter(function (g) { return g.w === "holds"; });
  document.getElementById("holdnote").textContent = gh.length ? "(hatched: holds not in this file; hover for how many)" : "";
}

function drawSequence() {
  var h = rows * LANE + AXIS, w = width(), out = DEFS + ticks(h);
  function y(n) { return n * LANE + LANE / 2; }
  out += gaps("messages", 0, rows * LANE);
  for (var r = 0; r < rows; r++) {
    out += '<text class="row-label" x="4" y="' + (y(r) + 4) + '">' + esc(D.rows[r]) + '</text><line class="lane" x1="' + LEFT + '" x2="' + (w - RIGHT) + '" y1="' + y(r) + '" y2="' + y(r) + '"></line>';
  }
  var vis = [], selfs = 0, arrows = 0;
  D.msgs.forEach(function (m, i) {
    var a = at(m.s, m.q), b = m.d >= 0 ? at(m.d, m.dq) : a;
    if (inView(a, b)) vis.push(i);
  });
  var stride = Math.max(1, Math.ceil(vis.length / MAXMSG));
  for (var j = 0; j < vis.length; j += stride) {
    var m = D.msgs[vis[j]], x0 = x(at(m.s, m.q)), y0 = y(m.f);
    if (m.f === m.to) { // a node's message to itself: no arrow, a dot on its lane
      out += '<circle class="selfmsg" data-k="m" data-i="' + vis[j] + '" cx="' + x0.toFixed(1) + '" cy="' + y0 + '" r="2.5"></circle>';
      selfs++;
      continue;
    }
    var cls = "msg", x1, y1, head = m.dup ? "url(#headdup)" : "url(#head)", tail = "";
    if (m.d >= 0) { x1 = x(at(m.d, m.dq)); y1 = y(m.to); }
    else {
      x1 = x0 + 14; y1 = y0 + (y(m.to) - y0) / 3; head = "";
      if (m.dq) x1 = Math.max(x1, x(at(m.s, m.dq)));
      if (/in flight|not delivered/.test(m.x)) cls += " unknown";
      else { cls += " dropped"; tail = '<path class="dropx" d="M' + (x1 - 3).toFixed(1) + ' ' + (y1 - 3).toFixed(1) + 'l6 6m0 -6l-6 6"></path>'; }
    }
    if (m.dup) cls += " dup";
    out += '<line class="' + cls + '" data-k="m" data-i="' + vis[j] + '" x1="' + x0.toFixed(1) + '" y1="' + y0 + '" x2="' + x1.toFixed(1) + '" y2="' + y1.toFixed(1) + '"' + (head ? ' marker-end="' + head + '"' : '') + '></line>' + tail;
    arrows++;
  }
  out += cursor(h);
  sq.setAttribute("viewBox", "0 0 " + w + " " + h);
  sq.setAttribute("height", h);
  sq.innerHTML = out;
  var shown = arrows + selfs, note = plural(shown, "message", "messages") + " of " + num(vis.length) + " in view drawn (" + plural(arrows, "arrow", "arrows") + ", " + plural(selfs, "dot", "dots") + " for a node's messages to itself)";
  if (shown < vis.length) note += "; zoom in to see every one";
  if (D.kept) note += "; the file holds " + D.kept + ", hatched where some are left out";
  document.getElementById("msgnote").textContent = "(" + note + ")";
}

function draw() {
  tip.style.display = "none"; // what it described may have moved or gone
  drawTimeline(); drawSequence();
  document.getElementById("axis-time").classList.toggle("on", mode === "time");
  document.getElementById("axis-step").classList.toggle("on", mode === "step");
}

function where(t, q) { return (NS > 0 && q > 0 ? "step " + (Math.min(Math.floor(stepPos(q)), NS - 1) + 1) + ", " : "") + ms(t); }
function describe(k, i) {
  var o;
  switch (k) {
  case "m": o = D.msgs[i];
    return o.k + "  n" + o.f + " \u2192 n" + o.to + (o.f === o.to ? "  (to itself: delivered at once, as a step of its own)" : "") + (o.dup ? "  (network duplicate)" : "") +
      "\nballot " + o.b + "   resource " + o.r + "\nsent      " + where(o.s, o.q) + "\n" +
      (o.d >= 0 ? "delivered " + where(o.d, o.dq) + "  (+" + ((o.d - o.s) / 1e6).toFixed(6) + " ms)" : "not delivered: " + o.x);
  case "h": o = D.holds[i];
    return "n" + o.n + " holds resource " + o.r + "\nballot " + o.b + "\nfrom " + where(o.s, o.q) + "\nto   " + where(o.e, o.eq) + "  (" + dur(o.e - o.s) + ")";
  case "v": o = D.violations[i];
    return "VIOLATION on resource " + o.r + "\nowners n" + o.o[0] + " and n" + o.o[1] + (o.b && o.b[0] ? "  (ballots " + o.b[0] + ", " + o.b[1] + ")" : "") + "\nfrom " + where(o.s, o.q) + ", overlap " + dur(o.e - o.s);
  case "p": o = D.partitions[i];
    return "partition " + o.t + "\nfrom " + where(o.s, o.q) + " to " + ms(o.e);
  case "d": o = D.down[i];
    return "n" + o.n + " down from " + where(o.s, o.q) + " to " + ms(o.e);
  case "z": o = D.paused[i];
    return "n" + o.n + "'s process paused from " + where(o.s, o.q) + " to " + ms(o.e) + "  (" + dur(o.e - o.s) + ")";
  case "w": o = D.writes[i];
    return "n" + o.n + " wrote to the store: " + o.t2 + "\nat " + where(o.t, o.q);
  case "c": o = D.crashes[i];
    return "n" + o.n + " crashed at " + where(o.t, o.q);
  case "r": o = D.restarts[i];
    return "n" + o.n + " " + o.t2 + " at " + where(o.t, o.q);
  case "g": o = D.gaps[i];
    return "not all " + o.w + " are in this file here:\n" + num(o.kept) + " of " + num(o.total) + " " + o.w + " " + (o.w === "holds" ? "starting" : "sent") + " from " + dur(o.s) + " to " + dur(o.e) +
      "\n(the file keeps " + (o.w === "holds" ? "the earliest holds" : D.kept || "some messages") + ")";
  case "s": o = S[i];
    return "step " + (i + 1) + " (line " + o.line + "): " + o.cmd + "\nat " + ms(o.t) + "; click to select";
  }
  return "";
}

function setView(u0, u1) {
  var f = full(), span0 = f[1] - f[0], minSpan = mode === "step" ? 0.5 : 1000;
  var span = Math.min(Math.max(u1 - u0, minSpan), span0 * 1.05), mid = (u0 + u1) / 2;
  u0 = mid - span / 2; u1 = mid + span / 2;
  var lo = f[0] - span0 * 0.025, hi = f[1] + span0 * 0.025;
  if (u0 < lo) { u1 += lo - u0; u0 = lo; }
  if (u1 > hi) { u0 -= u1 - hi; u1 = hi; }
  view.u0 = u0; view.u1 = u1;
  draw();
}
function whole() { var f = full(); setView(f[0], f[1]); }
function zoom(f, u) {
  if (u === undefined) u = (view.u0 + view.u1) / 2;
  setView(u - (u - view.u0) * f, u + (view.u1 - u) * f);
}
function setMode(m) {
  if (m === mode || (m === "step" && NS === 0)) return;
  // Keep the selected step in view across the switch.
  mode = m;
  whole();
  if (sel >= 0) select(sel);
}
function pxToSvg(svg, ev) { var r = svg.getBoundingClientRect(); return (ev.clientX - r.left) * (width() / r.width); }

// --- steps ---------------------------------------------------------------
function stepAt(u) {
  if (NS === 0) return -1;
  if (mode === "step") return Math.max(0, Math.min(NS - 1, Math.floor(u)));
  var k = 0;
  for (var i = 0; i < NS; i++) if (S[i].t <= u) k = i;
  return k;
}
function select(k) {
  if (NS === 0) return;
  sel = Math.max(0, Math.min(NS - 1, k));
  if (mode === "step" && !(sel >= view.u0 && sel + 1 <= view.u1)) {
    var span = view.u1 - view.u0;
    setView(sel + 0.5 - span / 2, sel + 0.5 + span / 2);
  } else draw();
  showStep();
}
function showStep() {
  var s = S[sel], prev = sel > 0 ? S[sel - 1] : null;
  document.getElementById("stepno").textContent = "step " + (sel + 1) + " of " + NS;
  if (location.hash !== "#selftest" && history.replaceState) history.replaceState(null, "", "#step=" + (sel + 1) + (mode === "time" ? "&time" : ""));
  document.getElementById("stepslider").value = sel;
  document.getElementById("stepcmd").textContent = s.cmd;
  document.getElementById("stepwhere").textContent = "line " + s.line + " of the scenario; true time after it " + ms(s.t) +
    "; " + plural(s.recs.length + (s.more || 0), "record", "records");
  var tb = document.getElementById("states"), html = "", any = false;
  for (var n = 0; n < rows; n++) {
    var st = s.nodes[n] || "", old = prev ? prev.nodes[n] || "" : st;
    if (st) any = true;
    html += '<tr' + (prev && st !== old ? ' class="changed"' : '') + '><td>' + esc(D.rows[n]) + '</td><td class="state">' + esc(st || "(the algorithm does not describe its nodes)") + '</td></tr>';
  }
  tb.innerHTML = html;
  document.getElementById("stateshead").textContent = any ? "each node's state after this step (changed since the previous step: highlighted)" : "";
  var recs = s.recs.join("\n");
  if (s.more) recs += "\n... and " + num(s.more) + " more";
  document.getElementById("steprecs").textContent = recs || "(nothing happened: an expectation, a listing, or time that passed without an event)";
}

[tl, sq].forEach(function (svg) {
  svg.addEventListener("wheel", function (ev) { ev.preventDefault(); zoom(ev.deltaY < 0 ? 0.8 : 1.25, uAt(pxToSvg(svg, ev))); }, {passive: false});
  var drag = null;
  svg.addEventListener("mousedown", function (ev) { drag = {x: pxToSvg(svg, ev), u0: view.u0, u1: view.u1, moved: false}; svg.classList.add("dragging"); });
  window.addEventListener("mouseup", function (ev) {
    if (drag && !drag.moved && ev.target && svg.contains(ev.target) && NS > 0) {
      var px = pxToSvg(svg, ev);
      if (px >= LEFT) select(stepAt(uAt(px)));
    }
    drag = null; svg.classList.remove("dragging");
  });
  svg.addEventListener("mousemove", function (ev) {
    if (drag) {
      var d = pxToSvg(svg, ev) - drag.x;
      if (Math.abs(d) > 3) drag.moved = true;
      if (!drag.moved) return;
      var du = d / (width() - LEFT - RIGHT) * (drag.u1 - drag.u0);
      setView(drag.u0 - du, drag.u1 - du);
      return;
    }
    var el = ev.target, k = el.getAttribute && el.getAttribute("data-k");
    if (!k) { tip.style.display = "none"; return; }
    tip.textContent = describe(k, +el.getAttribute("data-i"));
    tip.style.display = "block";
    tip.style.left = Math.min(ev.clientX + 14, window.innerWidth - tip.offsetWidth - 4) + "px";
    tip.style.top = (ev.clientY + 14) + "px";
  });
  svg.addEventListener("mouseleave", function () { tip.style.display = "none"; });
});
document.getElementById("zoom-in").onclick = function () { zoom(0.5); };
document.getElementById("zoom-out").onclick = function () { zoom(2); };
document.getElementById("zoom-reset").onclick = whole;
document.getElementById("axis-time").onclick = function () { setMode("time"); };
document.getElementById("axis-step").onclick = function () { setMode("step"); };
window.addEventListener("keydown", function (ev) {
  if (ev.target && ev.target.tagName === "INPUT") return;
  if (ev.key === "+" || ev.key === "=") zoom(0.5);
  else if (ev.key === "-") zoom(2);
  else if (ev.key === "0") whole();
  else if (NS > 0 && (ev.key === "ArrowRight" || ev.key === "n")) select(sel + 1);
  else if (NS > 0 && (ev.key === "ArrowLeft" || ev.key === "p")) select(sel - 1);
  else return;
  ev.preventDefault();
});
window.addEventListener("resize", draw);
window.addEventListener("scroll", function () { tip.style.display = "none"; });

// --- the header ------------------------------------------------------------
var jump = document.getElementById("jump");
D.violations.slice(0, 10).forEach(function (v, i) {
  var b = document.createElement("button");
  b.className = "jump-violation";
  b.textContent = "violation " + (i + 1) + " at " + (NS > 0 ? "step " + (Math.min(Math.floor(stepPos(v.q)), NS - 1) + 1) : (v.s / 1e6).toFixed(3) + " ms");
  b.onclick = function () {
    if (mode === "step") { select(Math.floor(stepPos(v.q))); return; }
    var pad = Math.max(v.e - v.s, 5e6) * 4; setView(v.s - pad, v.e + pad);
  };
  jump.appendChild(b);
});
if (NS === 0) {
  document.getElementById("axis-step").style.display = "none";
  document.getElementById("stephint").style.display = "none";
}

var selfNote = D.total_self > 0 ? " (" + plural(D.total_self, "is a node's message", "are a node's messages") + " to itself, delivered at once as a step of its own and drawn as a dot, not an arrow)" : "";
var sum = plural(rows, "node", "nodes") + ", " + dur(D.end - D.start) + " of true time (" + ms(D.start) + " to " + ms(D.end) + ")" + (NS > 0 ? ", " + plural(NS, "step", "steps") + " (one per scenario command)" : "") + "; " +
  (D.holds.length < D.total_holds ? num(D.holds.length) + " of " + plural(D.total_holds, "hold", "holds") + " in this file (the earliest; hatched where left out)" : plural(D.holds.length, "hold", "holds")) + ", " +
  plural(D.crashes.length, "crash", "crashes") + ", " + plural(D.partitions.length, "partition", "partitions") + ", " + plural(D.violations.length, "violation", "violations") + "; " +
  (D.msgs.length < D.total_msgs ? num(D.msgs.length) + " of " + plural(D.total_msgs, "message", "messages") + " in this file" : plural(D.total_msgs, "message", "messages")) + selfNote + ".";
if (D.paused.length || D.writes.length) {
  var bad = function (re) { return D.writes.filter(function (w) { return re.test(w.t2); }).length; };
  sum += " " + plural(D.paused.length, "process pause", "process pauses") + "; " + plural(D.writes.length, "write", "writes") + " to the store in this file (" +
    num(bad(/^stale/)) + " stale, " + num(bad(/^rejected/)) + " rejected by the fenced store).";
}
document.getElementById("summary").textContent = sum;
if (D.meta) {
  document.getElementById("meta").textContent = Object.keys(D.meta).map(function (k) { return k + " " + D.meta[k]; }).join(" \u00b7 ");
}

// The legend: every symbol the views draw.
(function () {
  var items = [
    ['<rect x="1" y="3" width="24" height="8" fill="#4e79a7" stroke="#0003"></rect>', "a node holds the lease (one colour per node)"],
    ['<rect x="1" y="1" width="24" height="12" fill="#e0242480" stroke="#c00"></rect>', "violation: two holders at once"],
    ['<rect x="1" y="2" width="24" height="10" fill="#9995"></rect>', "node down"],
    ['<path d="M9 3L17 11M17 3L9 11" stroke="#c00" stroke-width="2"></path>', "crash"],
    ['<path d="M10 2L15 7L10 12Z" fill="#2a2"></path>', "restart"],
    ['<rect x="1" y="0" width="24" height="14" fill="#f5c54233"></rect>', "partition (all nodes)"],
    [DEFS + '<line x1="2" y1="11" x2="24" y2="3" stroke="#3465a4" marker-end="url(#head)"></line>', "message, sent \u2192 delivered"],
    ['<line x1="2" y1="11" x2="16" y2="6" stroke="#c00" stroke-dasharray="3 2"></line><path d="M13 3l6 6m0 -6l-6 6" stroke="#c00" stroke-width="1.5"></path>', "message dropped (hover: why)"],
    [DEFS + '<line x1="2" y1="11" x2="24" y2="3" stroke="#75507b" marker-end="url(#headdup)"></line>', "copy made by the network"],
    ['<line x1="2" y1="11" x2="16" y2="6" stroke="#888" stroke-dasharray="1 2"></line>', "never delivered (in flight at the end)"],
    ['<circle cx="13" cy="7" r="2.5" fill="#3465a4"></circle>', "a node's message to itself"],
    [DEFS + '<rect x="1" y="1" width="24" height="12" fill="url(#hatch)" stroke="#999" stroke-dasharray="2 2"></rect>', "not all in this file (hover)"]];
  if (D.paused.length) items.push(['<rect x="1" y="2" width="24" height="10" fill="#8e44ad33" stroke="#8e44ad" stroke-dasharray="3 2"></rect>', "process paused"]);
  if (D.writes.length) items.push(['<path d="M6 4V10" stroke="#555"></path><path d="M13 1V13" stroke="#c00" stroke-width="2"></path><path d="M20 1V13" stroke="#e67e22" stroke-width="2"></path>', "write to the store: accepted, stale, rejected (fenced)"]);
  if (NS > 0) items.push(['<rect x="8" y="0" width="10" height="14" fill="#3465a422" stroke="#3465a4"></rect>', "selected step"]);
  document.getElementById("legend").innerHTML = items.map(function (it) { return '<span><svg viewBox="0 0 26 14">' + it[0] + '</svg>' + esc(it[1]) + '</span>'; }).join("");
})();

if (NS > 0) {
  document.getElementById("stepper").style.display = "block";
  var slider = document.getElementById("stepslider");
  slider.max = NS - 1;
  slider.oninput = function () { select(+slider.value); };
  document.getElementById("step-prev").onclick = function () { select(sel - 1); };
  document.getElementById("step-next").onclick = function () { select(sel + 1); };
  // Start at the first violation when there is one: that is what a
  // counterexample is for.
  var first = D.violations.length ? Math.min(Math.floor(stepPos(D.violations[0].q)), NS - 1) : 0;
  // A link may name the step (#step=N, from 1) and the axis (#time).
  var named = /step=(\d+)/.exec(location.hash);
  if (named) first = +named[1] - 1;
  if (/time/.test(location.hash)) mode = "time";
  whole();
  select(first);
} else {
  whole();
}
document.body.setAttribute("data-ready", "1");

// #selftest (used by the package's browser test): hover the first message
// and the first violation through real mouse events, zoom in with the
// button and the wheel (the tooltip must be gone after), pan by a drag,
// step forward, and write what happened into the page, where a headless
// browser's DOM dump shows it.
if (location.hash === "#selftest") {
  var res = [];
  function hover(el) {
    var r = el.getBoundingClientRect();
    el.dispatchEvent(new MouseEvent("mousemove", {bubbles: true, clientX: r.left + r.width / 2, clientY: r.top + r.height / 2}));
    return tip.style.display + " " + tip.textContent.replace(/\n/g, " | ");
  }
  var m = sq.querySelector("line.msg:not(.dropped)");
  res.push("hover-msg: " + (m ? hover(m) : "none"));
  var v = tl.querySelector("rect.violation");
  res.push("hover-violation: " + (v ? hover(v) : "none"));
  var span0 = view.u1 - view.u0;
  document.getElementById("zoom-in").click();
  res.push("zoom-button: " + (view.u1 - view.u0 < span0));
  res.push("tip-after-zoom: " + tip.style.display);
  var span1 = view.u1 - view.u0, box = tl.getBoundingClientRect();
  tl.dispatchEvent(new WheelEvent("wheel", {bubbles: true, cancelable: true, deltaY: -100, clientX: box.left + box.width / 2, clientY: box.top + 5}));
  res.push("zoom-wheel: " + (view.u1 - view.u0 < span1));
  var u0 = view.u0;
  tl.dispatchEvent(new MouseEvent("mousedown", {bubbles: true, clientX: box.left + box.width / 2, clientY: box.top + 5}));
  tl.dispatchEvent(new MouseEvent("mousemove", {bubbles: true, clientX: box.left + box.width / 2 + 100, clientY: box.top + 5}));
  window.dispatchEvent(new MouseEvent("mouseup", {bubbles: true}));
  res.push("pan: " + (view.u0 < u0));
  document.getElementById("zoom-reset").click();
  var f = full();
  res.push("reset: " + (Math.abs(view.u1 - view.u0 - (f[1] - f[0])) < 1e-6 * (f[1] - f[0]) + 1));
  res.push("legend: " + document.querySelectorAll("#legend span").length);
  if (NS > 0) {
    var s0 = sel;
    window.dispatchEvent(new KeyboardEvent("keydown", {key: sel + 1 < NS ? "ArrowRight" : "ArrowLeft", bubbles: true}));
    res.push("step-key: " + (sel !== s0) + " " + document.getElementById("stepno").textContent);
    res.push("states: " + document.querySelectorAll("#states tr").length + " " + document.querySelector("#states td.state").textContent.split("\n")[0]);
    setMode("time");
    res.push("time-axis: " + (mode === "time"));
    setMode("step");
  }
  res.push("errors: " + (errors.textContent || "none"));
  var pre = document.createElement("pre");
  pre.id = "selftest";
  pre.textContent = res.join("\n");
  document.body.appendChild(pre);
}
})();
`
