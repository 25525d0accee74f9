// hnowd's web view: polls /api/status every second and draws the lab, the
// agents and the operations; /api/ops/ID for the one selected. Everything
// from hnowd goes into the page as text (textContent), never as markup:
// agent names and paths come from agents and operators.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
let token = "";
let selected = null;

// The token: from the address's fragment once (never sent to any server),
// then kept for this tab only.
function loadToken() {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  const op = /(?:^#|&)op=(\d+)/.exec(location.hash);  // an operation to show at once
  if (op) selected = Number(op[1]);
  if (match) {
    sessionStorage.setItem("hnow-web-token", decodeURIComponent(match[1]));
    history.replaceState(null, "", location.pathname);
  }
  token = sessionStorage.getItem("hnow-web-token") || "";
}

function element(tag, text, className) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (className) e.className = className;
  return e;
}

function svg(tag, attributes, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = String(text);
  return e;
}

function rate(bytesPerSecond) {
  if (!bytesPerSecond) return "-";
  return (bytesPerSecond * 8 / 1e6).toFixed(1) + " Mbit/s";
}

function bytes(n) {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return (i === 0 ? n : n.toFixed(1)) + " " + units[i];
}

function when(ms) { return ms ? new Date(ms).toLocaleTimeString() : "-"; }

function progressCell(op) {
  const td = element("td");
  if (op.fraction !== null && op.fraction !== undefined) {
    const bar = element("span", null, "bar");
    const fill = element("span");
    fill.style.width = Math.round(Math.min(1, op.fraction) * 100) + "%";
    bar.appendChild(fill);
    td.appendChild(bar);
  }
  td.appendChild(element("span", op.progress || ""));
  return td;
}

// What an operation was for, from its record's summary.
function what(op) {
  const s = op.summary || {};
  if (typeof s !== "object") return String(s);
  const source = s.file || s.path || s.input || "";
  if (s.command) return s.command + (source ? " on " + source : "");
  if (source) return source + (s.dest ? " to " + s.dest : "");
  return s.agent || "";
}

function drawAgents(agents) {
  const body = document.querySelector("#agents tbody");
  body.replaceChildren();
  for (const a of agents) {
    const tr = element("tr");
    tr.appendChild(element("td", a.name));
    tr.appendChild(element("td", a.site));
    tr.appendChild(element("td", a.state, a.state));
    tr.appendChild(element("td", rate(a.uplink_bytes_per_second), "number"));
    tr.appendChild(element("td", rate(a.downlink_bytes_per_second), "number"));
    tr.appendChild(element("td", a.compute_seconds_per_unit ? a.compute_seconds_per_unit.toFixed(4) + " s/unit" : "-", "number"));
    tr.appendChild(element("td", a.rates_age_s === null ? "-" : a.rates_age_s.toFixed(0) + " s", "number"));
    tr.appendChild(element("td", a.flags.length ? a.flags.join("; ") : "ok", a.flags.length ? "flag" : ""));
    body.appendChild(tr);
  }
}

// The lab: hnowd on the left, each site a group of its agents.
function drawLab(agents) {
  const lab = document.getElementById("lab");
  lab.replaceChildren();
  const sites = new Map();
  for (const a of agents) {
    if (!sites.has(a.site)) sites.set(a.site, []);
    sites.get(a.site).push(a);
  }
  const boxW = 180, boxH = 44, gap = 10, perRow = 4;
  let y = 10;
  const groups = [];
  for (const [site, members] of [...sites.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
    const rows = Math.ceil(members.length / perRow);
    const cols = Math.min(perRow, members.length);
    groups.push({ site, members, y, w: cols * (boxW + gap) + gap, h: rows * (boxH + gap) + gap + 22 });
    y += rows * (boxH + gap) + gap + 22 + 14;
  }
  const height = Math.max(y, 80), left = 170;
  const width = left + Math.max(300, ...groups.map(g => g.w)) + 10;
  lab.setAttribute("viewBox", "0 0 " + width + " " + height);
  lab.setAttribute("width", width);
  lab.setAttribute("height", height);
  const hy = height / 2 - 22;
  for (const g of groups) lab.appendChild(svg("line", { class: "link", x1: 130, y1: hy + 22, x2: left, y2: g.y + g.h / 2 }));
  lab.appendChild(svg("rect", { class: "hnowd", x: 10, y: hy, width: 120, height: 44, rx: 6 }));
  lab.appendChild(svg("text", { class: "site-name", x: 22, y: hy + 27 }, "hnowd"));
  for (const g of groups) {
    const group = svg("g", { class: "site-group" });
    group.appendChild(svg("rect", { class: "site", x: left, y: g.y, width: g.w, height: g.h, rx: 8 }));
    group.appendChild(svg("text", { class: "site-name", x: left + 10, y: g.y + 16 }, "site " + g.site));
    g.members.forEach((a, i) => {
      const x = left + gap + (i % perRow) * (boxW + gap);
      const ay = g.y + 22 + gap + Math.floor(i / perRow) * (boxH + gap);
      const node = svg("g", { class: "agent-node" });
      node.appendChild(svg("rect", { class: "agent " + a.state + (a.flags.length ? " flagged" : ""), x, y: ay, width: boxW, height: boxH, rx: 5 }));
      node.appendChild(svg("text", { class: "agent-name", x: x + 8, y: ay + 17 }, a.name.length > 20 ? a.name.slice(0, 19) + "…" : a.name));
      node.appendChild(svg("text", { class: "agent-rate", x: x + 8, y: ay + 34 }, "up " + rate(a.uplink_bytes_per_second) + ", down " + rate(a.downlink_bytes_per_second)));
      node.appendChild(svg("title", {}, a.name + " (" + a.state + ")" + (a.flags.length ? ": " + a.flags.join("; ") : "")));
      group.appendChild(node);
    });
    lab.appendChild(group);
  }
}

function drawOperations(operations) {
  const body = document.querySelector("#operations tbody");
  body.replaceChildren();
  // Queued first, then running, then the rest newest first.
  const order = { queued: 0, running: 1 };
  const sorted = [...operations].sort((a, b) => ((order[a.status] ?? 2) - (order[b.status] ?? 2)) || b.id - a.id);
  for (const op of sorted) {
    const tr = element("tr", null, op.id === selected ? "selected" : "");
    tr.dataset.id = op.id;
    tr.appendChild(element("td", op.id, "number"));
    tr.appendChild(element("td", op.kind));
    tr.appendChild(element("td", op.status, "status-" + op.status));
    tr.appendChild(element("td", when(op.started_ms)));
    tr.appendChild(progressCell(op));
    tr.appendChild(element("td", what(op)));
    tr.addEventListener("click", () => { selected = op.id; poll(); });
    body.appendChild(tr);
  }
}

function table(head, rows) {
  const t = document.getElementById("detail-table");
  const hr = element("tr");
  for (const h of head) hr.appendChild(element("th", h));
  t.tHead.replaceChildren(hr);
  t.tBodies[0].replaceChildren(...rows.map(r => {
    const tr = element("tr");
    for (const cell of r) tr.appendChild(element("td", cell));
    return tr;
  }));
}

function drawDetail(op) {
  const section = document.getElementById("detail");
  section.hidden = false;
  document.getElementById("detail-title").textContent = op.kind + " " + op.id + ": " + op.status;
  const links = document.getElementById("detail-links");
  links.replaceChildren();
  showPicture(op);
  if (op.send) {
    links.appendChild(element("span", op.send.algo + ", " + bytes(op.send.size) + ", " + op.send.replans + " replans"));
    table(["agent", "parent", "state", "received", "planned end"],
      op.send.copies.map(c => [c.agent, c.parent, c.state, bytes(c.bytes), c.planned_s.toFixed(2) + " s"]));
  } else if (op.run) {
    links.appendChild(element("span", op.run.phase + ", " + op.run.units + " units"));
    table(["agent", "units done", "units planned", "shares (units per round)", "compute", "idle"],
      op.run.agents.map(a => [a.agent, a.units, a.planned_units, a.share_units.join(" "), a.compute_s.toFixed(2) + " s", a.idle_s.toFixed(2) + " s"]));
  } else {
    table(["summary"], [[JSON.stringify(op.summary)]]);
  }
}

async function fetched(path) {
  const response = await fetch(path, { headers: { Authorization: "Bearer " + token }, cache: "no-store" });
  if (response.status === 401) throw new Error("unauthorized");
  if (!response.ok) throw new Error(path + ": " + response.status);
  return response;
}

async function get(path) {
  return (await fetched(path)).json();
}

// The picture of a send: its tree or stripes, each link's planned and
// achieved rate, the bottleneck, the replans. Fetched with the token (an
// <img src> could not send it) and shown as an image from a blob: URL, so
// nothing in it runs. Drawn again each poll while the send runs, once after.
let picture = { id: null, status: null, url: null };

async function showPicture(op) {
  const figure = document.getElementById("detail-picture");
  const wanted = op.kind === "send" && (op.send || op.has_picture);
  if (!wanted) {
    figure.hidden = true;
    return;
  }
  const underWay = op.status === "running" || op.status === "queued";
  if (picture.id === op.id && picture.status === op.status && !underWay) return;
  let url = null;
  try {
    url = URL.createObjectURL(await (await fetched("/api/ops/" + op.id + "/picture.svg")).blob());
  } catch (e) {
    figure.hidden = true;
    return;
  }
  if (picture.url) URL.revokeObjectURL(picture.url);
  picture = { id: op.id, status: op.status, url };
  document.getElementById("picture").src = url;
  const save = document.getElementById("picture-save");
  save.href = url;
  save.download = "send-" + op.id + ".svg";
  figure.hidden = false;
}

function showLogin(message) {
  document.getElementById("view").hidden = true;
  document.getElementById("login").hidden = false;
  document.getElementById("login-error").textContent = message || "";
}

async function poll() {
  if (!token) { showLogin(""); return; }
  try {
    const status = await get("/api/status");
    document.getElementById("login").hidden = true;
    document.getElementById("view").hidden = false;
    drawLab(status.agents);
    drawAgents(status.agents);
    drawOperations(status.operations);
    if (selected !== null) drawDetail(await get("/api/ops/" + selected));
    document.getElementById("updated").textContent = "updated " + new Date().toLocaleTimeString() +
      (status.error ? " - " + status.error : "");
  } catch (e) {
    if (e.message === "unauthorized") {
      sessionStorage.removeItem("hnow-web-token");
      token = "";
      showLogin("hnowd did not accept that token.");
    } else {
      document.getElementById("updated").textContent = "cannot reach hnowd: " + e.message;
    }
  }
}

document.getElementById("login").addEventListener("submit", (event) => {
  event.preventDefault();
  token = document.getElementById("token").value.trim();
  sessionStorage.setItem("hnow-web-token", token);
  poll();
});

loadToken();
poll();
setInterval(poll, 1000);
