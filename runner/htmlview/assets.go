package htmlview

// The page's style and script, inline so that the file needs nothing else.
// The script builds the SVG as markup (innerHTML on the <svg> elements
// parses it into the SVG namespace), draws only what lies in view, and
// redraws on zoom and pan.

const pageCSS = `
body { font: 13px/1.4 system-ui, sans-serif; margin: 0 16px 24px; color: #222; }
h1 { font-size: 18px; margin: 12px 0 4px; }
h2 { font-size: 14px; margin: 14px 0 4px; }
#summary, #meta, .hint, #msgnote { color: #555; }
#meta { margin-top: 12px; font-size: 11px; }
#controls { margin: 8px 0; }
#controls button { font: inherit; margin-right: 4px; }
#jump button { font-size: 11px; }
svg { display: block; width: 100%; border: 1px solid #ddd; background: #fff; cursor: grab; user-select: none; }
svg.dragging { cursor: grabbing; }
.row-label { font-size: 11px; fill: #333; }
.axis text { font-size: 10px; fill: #666; }
.axis line { stroke: #eee; }
.lane { stroke: #bbb; }
.hold { stroke: #0003; }
.down { fill: #9995; }
.partition { fill: #f5c54233; }
.violation { fill: #e0242480; stroke: #c00; stroke-width: 1; }
.crash { stroke: #c00; stroke-width: 2; }
.restart { fill: #2a2; }
.msg { stroke: #3465a4; stroke-width: 1; }
.msg.dropped { stroke: #c00; stroke-dasharray: 3 2; }
.msg.dup { stroke: #75507b; }
.msg:hover, .hold:hover, .violation:hover { stroke-width: 3; }
#tip { position: fixed; pointer-events: none; background: #222e; color: #fff; padding: 4px 7px; border-radius: 3px;
  font-size: 12px; white-space: pre; display: none; z-index: 10; }
`

const pageJS = `
(function () {
"use strict";
var D = JSON.parse(document.getElementById("data").textContent);
var tl = document.getElementById("timeline"), sq = document.getElementById("sequence"), tip = document.getElementById("tip");
var LEFT = 70, RIGHT = 10, ROW = 22, AXIS = 20, LANE = 34, MAXMSG = 4000;
var rows = D.rows.length;
var view = {t0: D.start, t1: Math.max(D.end, D.start + 1)};
var palette = ["#4e79a7", "#f28e2b", "#59a14f", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#e15759"];

function esc(s) { return String(s).replace(/[&<>"]/g, function (c) { return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]; }); }
function ms(ns) { var v = ns / 1e6, r = (view.t1 - view.t0) / 1e6; return v.toFixed(r < 1 ? 6 : r < 100 ? 3 : 1) + " ms"; }
function width() { return Math.max(300, tl.clientWidth || 900); }
function x(t) { return LEFT + (t - view.t0) / (view.t1 - view.t0) * (width() - LEFT - RIGHT); }
function tAt(px) { return view.t0 + (px - LEFT) / (width() - LEFT - RIGHT) * (view.t1 - view.t0); }
function inView(s, e) { return e >= view.t0 && s <= view.t1; }
function clampX(v) { return Math.max(LEFT - 2, Math.min(width() - RIGHT + 2, v)); }

function ticks(h) {
  var span = view.t1 - view.t0, raw = span / 8, p = Math.pow(10, Math.floor(Math.log10(raw))), step = p;
  [1, 2, 5, 10].forEach(function (m) { if (p * m <= raw) step = p * m; });
  var out = '<g class="axis">';
  for (var t = Math.ceil(view.t0 / step) * step; t <= view.t1; t += step) {
    var X = x(t).toFixed(1);
    out += '<line x1="' + X + '" x2="' + X + '" y1="0" y2="' + (h - AXIS) + '"></line><text x="' + X + '" y="' + (h - 6) + '" text-anchor="middle">' + esc((t / 1e6).toFixed(step < 1e6 ? 3 : 0)) + ' ms</text>';
  }
  return out + '</g>';
}

function drawTimeline() {
  var h = rows * ROW + AXIS, w = width(), out = ticks(h);
  D.partitions.forEach(function (p, i) {
    if (inView(p.s, p.e)) out += '<rect class="partition" data-k="p" data-i="' + i + '" x="' + clampX(x(p.s)) + '" y="0" width="' + Math.max(1, clampX(x(p.e)) - clampX(x(p.s))) + '" height="' + (rows * ROW) + '"></rect>';
  });
  for (var r = 0; r < rows; r++) out += '<text class="row-label" x="4" y="' + (r * ROW + 15) + '">' + esc(D.rows[r]) + '</text>';
  D.down.forEach(function (d, i) {
    if (inView(d.s, d.e)) out += '<rect class="down" data-k="d" data-i="' + i + '" x="' + clampX(x(d.s)) + '" y="' + (d.n * ROW + 2) + '" width="' + Math.max(1, clampX(x(d.e)) - clampX(x(d.s))) + '" height="' + (ROW - 4) + '"></rect>';
  });
  D.holds.forEach(function (hd, i) {
    if (!inView(hd.s, hd.e)) return;
    var x0 = clampX(x(hd.s)), x1 = clampX(x(hd.e));
    out += '<rect class="hold" data-k="h" data-i="' + i + '" x="' + x0.toFixed(1) + '" y="' + (hd.n * ROW + 4) + '" width="' + Math.max(1, x1 - x0).toFixed(1) + '" height="' + (ROW - 8) + '" fill="' + palette[hd.n % palette.length] + '"></rect>';
  });
  D.violations.forEach(function (v, i) {
    if (!inView(v.s, v.e)) return;
    var x0 = clampX(x(v.s)), x1 = clampX(x(v.e));
    v.o.forEach(function (n) {
      if (n >= 0 && n < rows) out += '<rect class="violation" data-k="v" data-i="' + i + '" x="' + (x0 - 1).toFixed(1) + '" y="' + (n * ROW + 1) + '" width="' + Math.max(3, x1 - x0 + 2).toFixed(1) + '" height="' + (ROW - 2) + '"></rect>';
    });
  });
  D.crashes.forEach(function (c, i) {
    if (!inView(c.t, c.t)) return;
    var X = x(c.t), Y = c.n * ROW + ROW / 2;
    out += '<path class="crash" data-k="c" data-i="' + i + '" d="M' + (X - 4) + ' ' + (Y - 4) + 'L' + (X + 4) + ' ' + (Y + 4) + 'M' + (X + 4) + ' ' + (Y - 4) + 'L' + (X - 4) + ' ' + (Y + 4) + '"></path>';
  });
  D.restarts.forEach(function (c, i) {
    if (!inView(c.t, c.t)) return;
    var X = x(c.t), Y = c.n * ROW + ROW / 2;
    out += '<path class="restart" data-k="r" data-i="' + i + '" d="M' + X + ' ' + (Y - 5) + 'L' + (X + 5) + ' ' + Y + 'L' + X + ' ' + (Y + 5) + 'Z"></path>';
  });
  tl.setAttribute("viewBox", "0 0 " + w + " " + h);
  tl.setAttribute("height", h);
  tl.innerHTML = out;
}

function drawSequence() {
  var h = rows * LANE + AXIS, w = width(), out = ticks(h);
  function y(n) { return n * LANE + LANE / 2; }
  for (var r = 0; r < rows; r++) {
    out += '<text class="row-label" x="4" y="' + (y(r) + 4) + '">' + esc(D.rows[r]) + '</text><line class="lane" x1="' + LEFT + '" x2="' + (w - RIGHT) + '" y1="' + y(r) + '" y2="' + y(r) + '"></line>';
  }
  var shown = 0, inview = 0;
  var vis = [];
  D.msgs.forEach(function (m, i) {
    if (m.f === m.to) return; // a node's message to itself: no arrow
    var end = m.d >= 0 ? m.d : m.s;
    if (inView(m.s, end)) vis.push(i);
  });
  inview = vis.length;
  var stride = Math.max(1, Math.ceil(vis.length / MAXMSG));
  for (var j = 0; j < vis.length; j += stride) {
    var m = D.msgs[vis[j]], cls = "msg", x0 = x(m.s), y0 = y(m.f), x1, y1;
    if (m.d >= 0) { x1 = x(m.d); y1 = y(m.to); } else { cls += " dropped"; x1 = x0 + 12; y1 = y0 + (y(m.to) - y0) / 3; }
    if (m.dup) cls += " dup";
    out += '<line class="' + cls + '" data-k="m" data-i="' + vis[j] + '" x1="' + x0.toFixed(1) + '" y1="' + y0 + '" x2="' + x1.toFixed(1) + '" y2="' + y1.toFixed(1) + '"></line>';
    shown++;
  }
  sq.setAttribute("viewBox", "0 0 " + w + " " + h);
  sq.setAttribute("height", h);
  sq.innerHTML = out;
  var note = shown + " of " + inview + " messages in view drawn";
  if (shown < inview) note += " (zoom in to see every one)";
  if (D.kept) note += "; the file holds " + D.kept;
  document.getElementById("msgnote").textContent = "(" + note + ")";
}

function draw() { drawTimeline(); drawSequence(); }

function describe(k, i) {
  var o;
  switch (k) {
  case "m": o = D.msgs[i];
    return o.k + "  n" + o.f + " \u2192 n" + o.to + (o.dup ? "  (network duplicate)" : "") + "\nballot " + o.b + "   resource " + o.r +
      "\nsent      " + (o.s / 1e6).toFixed(6) + " ms\n" + (o.d >= 0 ? "delivered " + (o.d / 1e6).toFixed(6) + " ms  (+" + ((o.d - o.s) / 1e6).toFixed(6) + " ms)" : "not delivered: " + o.x);
  case "h": o = D.holds[i];
    return "n" + o.n + " holds resource " + o.r + "\nballot " + o.b + "\nfrom " + (o.s / 1e6).toFixed(6) + " ms to " + (o.e / 1e6).toFixed(6) + " ms (" + ((o.e - o.s) / 1e6).toFixed(3) + " ms)";
  case "v": o = D.violations[i];
    return "VIOLATION on resource " + o.r + "\nowners n" + o.o[0] + " and n" + o.o[1] + (o.b && o.b[0] ? "  (ballots " + o.b[0] + ", " + o.b[1] + ")" : "") + "\nfrom " + (o.s / 1e6).toFixed(6) + " ms, overlap " + ((o.e - o.s) / 1e6).toFixed(6) + " ms";
  case "p": o = D.partitions[i];
    return "partition " + o.t + "\nfrom " + (o.s / 1e6).toFixed(3) + " ms to " + (o.e / 1e6).toFixed(3) + " ms";
  case "d": o = D.down[i];
    return "n" + o.n + " down from " + (o.s / 1e6).toFixed(3) + " ms to " + (o.e / 1e6).toFixed(3) + " ms";
  case "c": o = D.crashes[i];
    return "n" + o.n + " crashed at " + (o.t / 1e6).toFixed(6) + " ms";
  case "r": o = D.restarts[i];
    return "n" + o.n + " " + o.t2 + " at " + (o.t / 1e6).toFixed(6) + " ms";
  }
  return "";
}

function setView(t0, t1) {
  var full = Math.max(D.end - D.start, 1), span = Math.min(Math.max(t1 - t0, 1000), full * 1.05);
  var mid = (t0 + t1) / 2;
  t0 = mid - span / 2; t1 = mid + span / 2;
  var lo = D.start - full * 0.025, hi = D.end + full * 0.025;
  if (t0 < lo) { t1 += lo - t0; t0 = lo; }
  if (t1 > hi) { t0 -= t1 - hi; t1 = hi; }
  view.t0 = t0; view.t1 = t1;
  draw();
}
function zoom(f, at) {
  if (at === undefined) at = (view.t0 + view.t1) / 2;
  setView(at - (at - view.t0) * f, at + (view.t1 - at) * f);
}
function pxToSvg(svg, ev) { var r = svg.getBoundingClientRect(); return (ev.clientX - r.left) * (width() / r.width); }

[tl, sq].forEach(function (svg) {
  svg.addEventListener("wheel", function (ev) { ev.preventDefault(); zoom(ev.deltaY < 0 ? 0.8 : 1.25, tAt(pxToSvg(svg, ev))); }, {passive: false});
  var drag = null;
  svg.addEventListener("mousedown", function (ev) { drag = {x: pxToSvg(svg, ev), t0: view.t0, t1: view.t1}; svg.classList.add("dragging"); });
  window.addEventListener("mouseup", function () { drag = null; svg.classList.remove("dragging"); });
  svg.addEventListener("mousemove", function (ev) {
    if (drag) {
      var dt = (pxToSvg(svg, ev) - drag.x) / (width() - LEFT - RIGHT) * (drag.t1 - drag.t0);
      setView(drag.t0 - dt, drag.t1 - dt);
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
document.getElementById("zoom-reset").onclick = function () { setView(D.start, D.end); };
window.addEventListener("keydown", function (ev) {
  if (ev.key === "+" || ev.key === "=") zoom(0.5);
  else if (ev.key === "-") zoom(2);
  else if (ev.key === "0") setView(D.start, D.end);
});
window.addEventListener("resize", draw);

var jump = document.getElementById("jump");
D.violations.slice(0, 10).forEach(function (v, i) {
  var b = document.createElement("button");
  b.className = "jump-violation";
  b.textContent = "violation " + (i + 1) + " at " + (v.s / 1e6).toFixed(3) + " ms";
  b.onclick = function () { var pad = Math.max(v.e - v.s, 5e6) * 4; setView(v.s - pad, v.e + pad); };
  jump.appendChild(b);
});
var sum = rows + " nodes, " + ((D.end - D.start) / 1e9).toFixed(3) + " s of true time (" + (D.start / 1e6).toFixed(3) + " to " + (D.end / 1e6).toFixed(3) + " ms); " +
  D.holds.length + (D.holds.length < D.total_holds ? " of " + D.total_holds : "") + " holds, " + D.crashes.length + " crashes, " +
  D.partitions.length + " partitions, " + D.violations.length + " violations, " + D.msgs.length + (D.msgs.length < D.total_msgs ? " of " + D.total_msgs : "") + " messages.";
document.getElementById("summary").textContent = sum;
if (D.meta) {
  document.getElementById("meta").textContent = Object.keys(D.meta).map(function (k) { return k + " " + D.meta[k]; }).join(" \u00b7 ");
}
draw();
document.body.setAttribute("data-ready", "1");

// #selftest (used by the package's browser test): hover the first message
// and the first violation through real mouse events, zoom in with the
// button and the wheel, pan by a drag, and write what happened into the
// page, where a headless browser's DOM dump shows it.
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
  var span0 = view.t1 - view.t0;
  document.getElementById("zoom-in").click();
  res.push("zoom-button: " + (view.t1 - view.t0 < span0));
  var span1 = view.t1 - view.t0, box = tl.getBoundingClientRect();
  tl.dispatchEvent(new WheelEvent("wheel", {bubbles: true, cancelable: true, deltaY: -100, clientX: box.left + box.width / 2, clientY: box.top + 5}));
  res.push("zoom-wheel: " + (view.t1 - view.t0 < span1));
  var t0 = view.t0;
  tl.dispatchEvent(new MouseEvent("mousedown", {bubbles: true, clientX: box.left + box.width / 2, clientY: box.top + 5}));
  tl.dispatchEvent(new MouseEvent("mousemove", {bubbles: true, clientX: box.left + box.width / 2 + 100, clientY: box.top + 5}));
  window.dispatchEvent(new MouseEvent("mouseup", {bubbles: true}));
  res.push("pan: " + (view.t0 < t0));
  document.getElementById("zoom-reset").click();
  res.push("reset: " + (view.t0 === D.start || Math.abs(view.t1 - view.t0 - (D.end - D.start)) < 1));
  var pre = document.createElement("pre");
  pre.id = "selftest";
  pre.textContent = res.join("\n");
  document.body.appendChild(pre);
}
})();
`
