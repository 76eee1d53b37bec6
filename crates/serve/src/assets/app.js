// The page of `bohf serve`: shows the pending query, sends the answer with the number `t` of the
// query it answers, and shows the next query only once the server has saved the answer.
"use strict";
const el = (id) => document.getElementById(id);
let current = null; // the state last received
let busy = false;

function fmt(v) {
  return Number.isInteger(v) ? String(v) : String(Math.round(v * 1e6) / 1e6);
}

function optionCard(o, tag) {
  const card = document.createElement("div");
  card.className = "option";
  if (tag) card.id = "option-" + tag.toLowerCase();
  if (tag) card.setAttribute("aria-label", "Option " + tag + ": " + o.name);
  const h = document.createElement("h3");
  if (tag) {
    const t = document.createElement("span");
    t.className = "tag";
    t.textContent = tag;
    h.appendChild(t);
  }
  h.appendChild(document.createTextNode(o.name));
  card.appendChild(h);
  if (o.image) {
    const img = document.createElement("img");
    img.src = "img/" + o.index;
    img.alt = o.name;
    card.appendChild(img);
  }
  const table = document.createElement("table");
  for (const [k, v] of Object.entries(o.attributes)) {
    const tr = table.insertRow();
    tr.insertCell().textContent = k;
    const td = tr.insertCell();
    td.className = "v";
    td.textContent = fmt(v);
  }
  card.appendChild(table);
  return card;
}

function button(id, label, cls, answer, aria) {
  const b = document.createElement("button");
  b.id = id;
  b.textContent = label;
  if (aria) b.setAttribute("aria-label", aria);
  if (cls) b.className = cls;
  b.addEventListener("click", () => send(answer()));
  return b;
}

function showMessage(text) {
  const m = el("message");
  m.textContent = text || "";
  m.hidden = !text;
}

function render(s) {
  current = s;
  document.title = s.name + " — bohf";
  el("name").textContent = s.name;
  el("progress").textContent = s.answered + " of " + s.budget + " answered" +
    (s.abstained ? " (" + s.abstained + " without preference or skipped)" : "") +
    (s.done ? "" : ", " + (s.budget - s.answered) + " left");
  el("bar").max = s.budget;
  el("bar").value = s.answered;
  el("done").hidden = !s.done;
  el("query").hidden = s.done;
  const rec = el("rec");
  rec.replaceChildren();
  el("recommendation").hidden = !s.recommendation;
  if (s.recommendation) rec.appendChild(optionCard(s.recommendation, null));
  if (s.done) return;
  const q = s.query;
  const opts = el("options");
  const btns = el("buttons");
  opts.replaceChildren();
  btns.replaceChildren();
  el("query").dataset.t = q.t;
  el("query").dataset.kind = q.kind;
  if (q.kind === "duel") {
    el("question").textContent = "Query " + q.t + ": " + s.question;
    opts.append(optionCard(q.a, "A"), optionCard(q.b, "B"));
    btns.append(
      button("choose-a", "A is better", "main", () => ({ choice: "a" }), "A is better: " + q.a.name),
      button("choose-b", "B is better", "main", () => ({ choice: "b" }), "B is better: " + q.b.name));
    el("keys").innerHTML = "Keys: <kbd>A</kbd> or <kbd>←</kbd>, <kbd>B</kbd> or <kbd>→</kbd>, <kbd>=</kbd> no preference, <kbd>S</kbd> skip";
  } else if (q.kind === "choice") {
    // Best of k: cards 1..k; the answer is the chosen card's 0-based position in `options`.
    const k = q.options.length;
    el("question").textContent = "Query " + q.t + ": " + s.question + " (pick the best of " + k + ")";
    q.options.forEach((o, i) => {
      const tag = String(i + 1);
      opts.append(optionCard(o, tag));
      btns.append(button("choose-" + tag, tag + " is best", "main", () => ({ choice: i }), tag + " is best: " + o.name));
    });
    // Keys 1 to 9 (a larger k is answered by clicking).
    el("keys").innerHTML = "Keys: <kbd>1</kbd> to <kbd>" + Math.min(k, 9) + "</kbd> pick that option, <kbd>=</kbd> no preference, <kbd>S</kbd> skip";
  } else if (q.kind === "label") {
    el("question").textContent = "Query " + q.t + ": accept this option?";
    opts.append(optionCard(q.option, null));
    btns.append(
      button("accept", "Accept", "main", () => ({ accept: true })),
      button("reject", "Reject", "main", () => ({ accept: false })));
    el("keys").innerHTML = "Keys: <kbd>Y</kbd> accept, <kbd>N</kbd> reject, <kbd>=</kbd> no preference, <kbd>S</kbd> skip";
  } else {
    el("question").textContent = "Query " + q.t + ": your value for this option?";
    opts.append(optionCard(q.option, null));
    const input = document.createElement("input");
    input.type = "number";
    input.step = "any";
    input.id = "value";
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") { e.preventDefault(); sendValue(); }
      e.stopPropagation();
    });
    btns.append(input, button("send-value", "Send", "main", () => null));
    el("send-value").onclick = null;
    el("send-value").addEventListener("click", sendValue);
    el("keys").innerHTML = "Keys: type a number and <kbd>Enter</kbd>; <kbd>=</kbd> no preference, <kbd>S</kbd> skip (outside the box)";
  }
  btns.append(
    button("no-preference", "No preference", "", () => ({ no_preference: true })),
    button("skip", "Skip", "", () => ({ skip: true })));
}

function sendValue() {
  const raw = el("value").value.trim();
  const v = Number(raw);
  if (raw === "" || !Number.isFinite(v)) { showMessage("Type a number first."); return; }
  send({ value: v });
}

async function send(answer) {
  if (!answer || busy || !current || current.done) return;
  busy = true;
  document.querySelectorAll("button").forEach((b) => (b.disabled = true));
  try {
    const r = await fetch("api/answer", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(Object.assign({ t: current.query.t }, answer)),
    });
    const body = await r.json();
    if (r.ok) {
      showMessage("");
      render(body);
    } else {
      showMessage(body.error || ("error " + r.status));
      if (r.status === 409) await load(false);
    }
  } catch (e) {
    showMessage("The server cannot be reached (" + e + "). Your earlier answers are saved; reload the page when it is back.");
  } finally {
    busy = false;
    document.querySelectorAll("button").forEach((b) => (b.disabled = false));
  }
}

async function load(clear) {
  try {
    const r = await fetch("api/state", { cache: "no-store" });
    const body = await r.json();
    if (!r.ok) { showMessage(body.error || ("error " + r.status)); return; }
    if (clear) showMessage("");
    render(body);
  } catch (e) {
    showMessage("The server cannot be reached (" + e + "). Reload the page when it is back.");
  }
}

document.addEventListener("keydown", (e) => {
  if (!current || current.done || e.ctrlKey || e.metaKey || e.altKey) return;
  const k = e.key.toLowerCase();
  const kind = current.query.kind;
  let a = null;
  if (k === "=") a = { no_preference: true };
  else if (k === "s") a = { skip: true };
  else if (kind === "duel" && (k === "a" || k === "arrowleft")) a = { choice: "a" };
  else if (kind === "duel" && (k === "b" || k === "arrowright")) a = { choice: "b" };
  else if (kind === "choice" && /^[1-9]$/.test(k) && Number(k) <= current.query.options.length) a = { choice: Number(k) - 1 };
  else if (kind === "label" && k === "y") a = { accept: true };
  else if (kind === "label" && k === "n") a = { accept: false };
  if (a) { e.preventDefault(); send(a); }
});

load(true);
