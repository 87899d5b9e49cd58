// The Semafor console (docs/console.md). Plain DOM, no library, no build step (decision 0042).
// Everything shown comes from one Server-Sent Events stream (GET /api/stream), read with fetch so
// that it can carry the bearer token; the stream is opened again whenever the view changes (filter,
// page, selection). Text from the server is only ever set as textContent: a semaphore's name may
// hold anything.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const view = { prefix: "", after: null, limit: 100, name: null, pages: [] };
  let token = sessionStorage.getItem("semafor-token") || "";
  let stream = null; // the AbortController of the open stream
  let retryDelay = 1000;
  let retryTimer = null;
  let lastList = null;
  let lastDetail = null;

  function headers(extra) {
    const h = Object.assign({}, extra || {});
    if (token) h["Authorization"] = "Bearer " + token;
    return h;
  }

  function setState(state, text) {
    const el = $("live-state");
    el.className = "state " + state;
    el.textContent = text || state;
  }

  function showProblem(text) {
    const el = $("problem");
    el.hidden = !text;
    el.textContent = text || "";
  }

  // ------------------------------------------------------------------ the stream

  function streamUrl() {
    const q = new URLSearchParams();
    if (view.prefix) q.set("prefix", view.prefix);
    if (view.after) q.set("after", view.after);
    q.set("limit", String(view.limit));
    if (view.name) q.set("name", view.name);
    return "/api/stream?" + q.toString();
  }

  function reopen() {
    if (stream) stream.abort();
    if (retryTimer) clearTimeout(retryTimer);
    retryTimer = null;
    const controller = new AbortController();
    stream = controller;
    setState("connecting", "connecting");
    read(controller).catch((e) => {
      if (controller.signal.aborted) return; // replaced by a newer stream
      setState("reconnecting", "reconnecting");
      showProblem("The live stream was cut (" + e.message + "); trying again.");
      retryTimer = setTimeout(reopen, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 10000);
    });
  }

  async function read(controller) {
    const response = await fetch(streamUrl(), {
      headers: headers({ "X-Semafor-Console": "1" }), signal: controller.signal, cache: "no-store" });
    if (response.status === 401) {
      setState("failed", "sign in needed");
      askToken();
      return;
    }
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      throw new Error(response.status + " " + (body.error || "") + " " + (body.message || ""));
    }
    // "live" once the first events are shown, not when the headers arrive: until then the page
    // still shows its placeholders, and a green "live" beside "connecting…" says nothing true
    showProblem(null);
    retryDelay = 1000;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        // streams end every ten minutes by design: open the next one at once (unless the token
        // was refused: the token dialog opens it again)
        if (!controller.signal.aborted && !$("token-dialog").open) setTimeout(reopen, 0);
        return;
      }
      buffer += decoder.decode(value, { stream: true });
      let end;
      let shown = false;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        shown = dispatch(block) || shown;
      }
      if (shown && !controller.signal.aborted) setState("live", "live");
    }
  }

  function dispatch(block) {
    let event = "message";
    const data = [];
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
    if (data.length === 0) return false;
    const payload = JSON.parse(data.join("\n"));
    if (event === "list") renderList(payload);
    else if (event === "semaphore") renderDetail(payload);
    else if (event === "node") renderNode(payload);
    else if (event === "sessions") renderSessions(payload);
    else if (event === "problem") renderProblem(payload);
    return true;
  }

  // ------------------------------------------------------------------ rendering

  function cell(row, text, numeric) {
    const td = document.createElement("td");
    td.textContent = text === null || text === undefined ? "—" : String(text);
    if (numeric) td.className = "n";
    row.appendChild(td);
    return td;
  }

  function emptyRow(tbody, columns, text) {
    const tr = document.createElement("tr");
    tr.className = "empty";
    const td = cell(tr, text);
    td.colSpan = columns;
    tbody.appendChild(tr);
  }

  function duration(ms) {
    if (ms === null || ms === undefined) return "—";
    if (ms < 1000) return ms + " ms";
    const s = ms / 1000;
    if (s < 60) return (Number.isInteger(s) ? s : s.toFixed(1)) + " s";
    const m = Math.floor(s / 60);
    if (m < 60) return m + " min" + (Math.floor(s % 60) ? " " + Math.floor(s % 60) + " s" : "");
    return Math.floor(m / 60) + " h" + (m % 60 ? " " + (m % 60) + " min" : "");
  }

  function client(c) {
    if (!c || (!c.name && !c.host && !c.pid)) return "—";
    return (c.name || "?") + (c.host ? "@" + c.host : "") + (c.pid ? " (pid " + c.pid + ")" : "");
  }

  function renderList(page) {
    lastList = page;
    showProblem(null); // the list reads again: whatever stopped it is over
    const tbody = $("semaphores").tBodies[0];
    tbody.replaceChildren();
    for (const s of page.semaphores) {
      const tr = document.createElement("tr");
      tr.dataset.name = s.name;
      if (s.name === view.name) tr.classList.add("selected");
      cell(tr, s.name).title = s.name;
      cell(tr, s.value, true);
      cell(tr, s.capacity, true);
      cell(tr, s.waiters, true);
      cell(tr, s.holders, true);
      cell(tr, s.leases, true);
      tr.addEventListener("click", () => select(s.name));
      tbody.appendChild(tr);
    }
    if (page.semaphores.length === 0) emptyRow(tbody, 6, view.prefix ? "No semaphore starts with this prefix." : "No semaphores yet.");
    $("next-page").disabled = !page.more;
    $("first-page").disabled = view.pages.length === 0;
    $("page-info").textContent = "page " + (view.pages.length + 1);
  }

  function renderDetail(d) {
    lastDetail = d;
    if (d.name !== view.name) return;
    $("no-selection").hidden = true;
    $("detail").hidden = false;
    $("detail-name").textContent = d.name;
    const dl = $("detail-status");
    dl.replaceChildren();
    if (!d.exists) {
      addStatus(dl, "State", "deleted, or never created");
      for (const id of ["queue", "holders", "leases"]) $(id).tBodies[0].replaceChildren();
      $("histogram").replaceChildren();
      return;
    }
    const s = d.status;
    addStatus(dl, "Value", s.value, "value");
    addStatus(dl, "Capacity", s.capacity === null ? "none" : s.capacity);
    addStatus(dl, "Policy", s.policy);
    addStatus(dl, "Waiters", s.waiters, "waiters");
    addStatus(dl, "Holders", s.holders);
    addStatus(dl, "Owned", s.owned);
    addStatus(dl, "Leases", s.leases);
    addStatus(dl, "Leased", s.leased);

    const queue = $("queue").tBodies[0];
    queue.replaceChildren();
    for (const w of d.queue) {
      const tr = document.createElement("tr");
      tr.dataset.session = w.sessionId;
      cell(tr, w.sequence, true);
      cell(tr, w.sessionId);
      cell(tr, client(w.client));
      cell(tr, w.kind);
      cell(tr, w.amount, true);
      cell(tr, duration(w.waitingMillis), true);
      cell(tr, w.timeoutInMillis === null ? "never" : duration(w.timeoutInMillis), true);
      queue.appendChild(tr);
    }
    if (d.queue.length === 0) emptyRow(queue, 7, "Nobody waits.");
    if (d.queueMore) emptyRow(queue, 7, "… and more (the first " + d.queue.length + " are shown)");

    const holders = $("holders").tBodies[0];
    holders.replaceChildren();
    for (const h of d.holders) {
      const tr = document.createElement("tr");
      tr.dataset.session = h.sessionId;
      cell(tr, h.sessionId);
      cell(tr, client(h.client));
      cell(tr, h.owned, true);
      cell(tr, h.slots.length ? h.slots.join(", ") : "—");
      holders.appendChild(tr);
    }
    if (d.holders.length === 0) emptyRow(holders, 4, "No session owns permits here.");
    if (d.holdersMore) emptyRow(holders, 4, "… and more");

    const leases = $("leases").tBodies[0];
    leases.replaceChildren();
    for (const l of d.leases) {
      const tr = document.createElement("tr");
      tr.dataset.permit = l.permitId;
      cell(tr, l.permitId);
      cell(tr, l.sessionId === "0" ? "delivered" : l.sessionId);
      cell(tr, l.amount, true);
      cell(tr, l.slots.length ? l.slots.join(", ") : "—");
      cell(tr, l.token, true);
      cell(tr, duration(l.leftMillis), true);
      const td = document.createElement("td");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "danger release";
      button.textContent = "Release…";
      button.addEventListener("click", () => confirmAction(
        "Release lease " + l.permitId + " of " + d.name + " (" + l.amount + " permits)? Its holder loses them now.",
        null,
        () => act("POST", "/api/lease/release", { name: d.name, permit: l.permitId })));
      td.appendChild(button);
      tr.appendChild(td);
      leases.appendChild(tr);
    }
    if (d.leases.length === 0) emptyRow(leases, 7, "No leases.");
    if (d.leasesMore) emptyRow(leases, 7, "… and more");
    renderHistogram(d.waitHistogram || {});
  }

  function addStatus(dl, label, value, id) {
    const dt = document.createElement("dt");
    dt.textContent = label;
    const dd = document.createElement("dd");
    dd.textContent = value === null || value === undefined ? "—" : String(value);
    if (id) dd.id = "status-" + id;
    dl.append(dt, dd);
  }

  function renderHistogram(h) {
    const el = $("histogram");
    el.replaceChildren();
    if (!h.boundsMillis || !h.count) {
      const p = document.createElement("p");
      p.textContent = "No grant after a wait recorded on this node yet.";
      el.appendChild(p);
      return;
    }
    // cumulative counts per bound: each bar shows the grants in its bucket alone
    const counts = h.cumulativeCounts.map((c, i) => c - (i ? h.cumulativeCounts[i - 1] : 0));
    counts.push(h.count - h.cumulativeCounts[h.cumulativeCounts.length - 1]);
    // [number, unit]: the number above its unit, so that 17 labels fit under 17 narrow bars
    const short = (ms) => ms < 1000 ? [ms, "ms"] : ms < 60000 ? [ms / 1000, "s"] : [ms / 60000, "min"];
    const parts = h.boundsMillis.map((b) => ["≤" + short(b)[0], short(b)[1]]);
    const last = short(h.boundsMillis[h.boundsMillis.length - 1]);
    parts.push([">" + last[0], last[1]]);
    const labels = parts.map((p) => p[0] + " " + p[1]);
    const top = Math.max(1, ...counts);
    counts.forEach((c, i) => {
      const bucket = document.createElement("div");
      bucket.className = "bucket";
      bucket.title = labels[i] + ": " + Math.round(c) + " grants";
      const count = document.createElement("span");
      count.className = "count";
      count.textContent = c ? String(Math.round(c)) : "";
      const bar = document.createElement("div");
      bar.className = "bar";
      bar.style.height = (80 * c / top) + "%";
      const label = document.createElement("span");
      label.className = "label";
      const bound = document.createElement("span");
      bound.textContent = parts[i][0];
      const unit = document.createElement("span");
      unit.textContent = parts[i][1];
      label.append(bound, unit);
      bucket.append(count, bar, label);
      el.appendChild(bucket);
    });
  }

  function renderNode(n) {
    const el = $("node");
    if (n.denied) {
      el.textContent = "node details need the 'cluster' permission";
      return;
    }
    const parts = [];
    if (n.mode === "raft") {
      parts.push("node " + n.node + ": " + n.role, "term " + n.term, "commit " + n.commitIndex,
        "applied " + n.appliedIndex, "leader " + (n.leader || "unknown"));
    } else {
      parts.push("single node");
    }
    parts.push(n.sessions + " sessions", n.connections + " connections");
    el.textContent = parts.join(" · ");
    const panel = $("cluster-panel");
    panel.hidden = n.mode !== "raft";
    if (panel.hidden) return;
    const followers = new Map((n.followers || []).map((f) => [f.id, f]));
    const tbody = $("members").tBodies[0];
    tbody.replaceChildren();
    // GET /cluster gives the members as "n1,n2,n3"
    const members = Array.isArray(n.members) ? n.members : String(n.members || "").split(",").filter(Boolean);
    for (const id of members) {
      const tr = document.createElement("tr");
      tr.dataset.member = id;
      const f = followers.get(id);
      // the leader says which followers it has not heard from for longer than the election
      // timeout: their match index stays where it was, so without this a dead one looks healthy
      const unreachable = id !== n.leader && f !== undefined && f.reachable === false;
      tr.classList.toggle("unreachable", unreachable);
      cell(tr, id + (id === n.node ? " (this node)" : ""));
      cell(tr, id === n.leader ? "leader" : unreachable ? "unreachable" : "follower");
      cell(tr, id === n.node ? n.appliedIndex : (f ? f.matchIndex : null), true);
      const heard = f ? (f.sinceHeardMillis !== undefined ? f.sinceHeardMillis : f.silentMillis) : null;
      cell(tr, id === n.node ? null : f && heard === null ? "never heard" : duration(heard), true);
      tbody.appendChild(tr);
    }
  }

  function renderSessions(s) {
    const tbody = $("sessions").tBodies[0];
    tbody.replaceChildren();
    for (const row of s.sessions) {
      const tr = document.createElement("tr");
      tr.dataset.session = row.sessionId;
      cell(tr, row.sessionId);
      cell(tr, client(row.client));
      cell(tr, row.principal || "—");
      cell(tr, duration(row.ttlMillis), true);
      cell(tr, duration(row.ageMillis), true);
      cell(tr, duration(row.sinceLastRequestMillis), true);
      cell(tr, duration(row.sinceHeardMillis), true); // keep-alives count: what expiry measures
      cell(tr, row.holdings, true);
      cell(tr, row.waiting, true);
      tbody.appendChild(tr);
    }
    if (s.sessions.length === 0) emptyRow(tbody, 9, "No sessions.");
    $("sessions-count").textContent = s.total === null
      ? "(yours: " + s.sessions.length + (s.more ? "+" : "") + ")"
      : "(" + s.total + " on this node" + (s.more ? "; the first " + s.sessions.length + " shown" : "") + ")";
  }

  function renderProblem(p) {
    if (p.code === "UNAUTHENTICATED") {
      setState("failed", "sign in needed");
      showProblem(p.message + ": give a valid token.");
      askToken();
      return;
    }
    if (p.code === "NOT_LEADER") {
      // a follower answers no read: the semaphores are shown by the leader's console
      showProblem("This node is a follower; semaphores and sessions are read on the leader. "
        + p.message + " (its client address): open the admin console on that host.");
      return;
    }
    showProblem(p.view + ": " + p.code + " — " + p.message);
  }

  // ------------------------------------------------------------------ navigation

  // A semaphore has a link an operator can paste (into an incident, a chat): #/semaphore/NAME, the
  // name URL-encoded. Opening it, or changing the hash, selects that semaphore.
  const LINK = "#/semaphore/";

  function linkTo(name) {
    return LINK + encodeURIComponent(name);
  }

  function nameInHash() {
    if (!location.hash.startsWith(LINK)) return null;
    try {
      const name = decodeURIComponent(location.hash.slice(LINK.length));
      return name === "" ? null : name;
    } catch (e) {
      return null; // a mangled link: show the list as if there were none
    }
  }

  function select(name) {
    view.name = name;
    if (nameInHash() !== name) history.replaceState(null, "", linkTo(name));
    $("detail-link").href = linkTo(name);
    for (const tr of $("semaphores").tBodies[0].rows) tr.classList.toggle("selected", tr.dataset.name === name);
    $("detail-name").textContent = name;
    reopen();
  }

  let filterTimer = null;
  $("prefix").addEventListener("input", () => {
    clearTimeout(filterTimer);
    filterTimer = setTimeout(() => {
      view.prefix = $("prefix").value;
      view.after = null;
      view.pages = [];
      reopen();
    }, 250);
  });
  $("filter-form").addEventListener("submit", (e) => e.preventDefault());
  $("page-size").addEventListener("change", () => {
    view.limit = Number($("page-size").value);
    view.after = null;
    view.pages = [];
    reopen();
  });
  $("next-page").addEventListener("click", () => {
    if (!lastList || !lastList.next) return;
    view.pages.push(view.after);
    view.after = lastList.next;
    reopen();
  });
  $("first-page").addEventListener("click", () => {
    view.after = null;
    view.pages = [];
    reopen();
  });

  // ------------------------------------------------------------------ actions

  function confirmAction(text, valueLabel, run) {
    const dialog = $("confirm");
    $("confirm-text").textContent = text;
    $("confirm-value-label").hidden = !valueLabel;
    $("confirm-error").hidden = true;
    if (valueLabel) $("confirm-value").value = "";
    dialog.returnValue = "";
    dialog.onclose = null;
    const ok = $("confirm-ok");
    ok.onclick = async (e) => {
      e.preventDefault();
      const result = await run(valueLabel ? $("confirm-value").value : null);
      if (result.ok) {
        dialog.close("ok");
      } else {
        $("confirm-error").hidden = false;
        $("confirm-error").textContent = result.message;
      }
    };
    dialog.showModal();
  }

  async function act(method, path, params) {
    const q = new URLSearchParams(params);
    try {
      const response = await fetch(path + "?" + q.toString(), {
        method,
        headers: headers({ "X-Semafor-Console": "1" }),
        cache: "no-store",
      });
      const body = await response.json().catch(() => ({}));
      if (response.ok) return { ok: true };
      return { ok: false, message: (body.error || response.status) + ": " + (body.message || "") };
    } catch (e) {
      return { ok: false, message: "not sent: " + e.message };
    }
  }

  $("set-value").addEventListener("click", () => {
    const name = view.name;
    confirmAction("Set the value of " + name + "? Waiters it satisfies are granted at once.", "New value",
      (value) => act("POST", "/api/semaphore/value", { name, value }));
  });
  $("delete").addEventListener("click", () => {
    const name = view.name;
    confirmAction("Delete " + name + "? Its waiters are told it was deleted, and its holders lose it.", null,
      (unused) => act("DELETE", "/api/semaphore", { name }));
  });

  // ------------------------------------------------------------------ the token

  function askToken() {
    if ($("token-dialog").open) return; // asked already: the stream's end and a 401 both ask
    $("token").value = "";
    $("token-dialog").showModal();
  }
  $("token-button").addEventListener("click", askToken);
  $("token-dialog").addEventListener("close", () => {
    if ($("token-dialog").returnValue !== "ok") return;
    token = $("token").value.trim();
    if (token) sessionStorage.setItem("semafor-token", token);
    else sessionStorage.removeItem("semafor-token");
    reopen();
  });

  window.addEventListener("hashchange", () => {
    const name = nameInHash();
    if (name !== null && name !== view.name) select(name);
  });

  const linked = nameInHash();
  if (linked !== null) select(linked);
  else reopen();
})();
