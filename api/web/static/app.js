// Opus web client: live tables, moves, replay stepping. No build step, no
// dependency: the pages are rendered by the server (api/web/), and this
// script only swaps in fragments the server renders with the same
// templates. It never reads a token (the seat's is an HttpOnly cookie); its
// posts carry the page's CSRF token in the X-CSRF-Token header.
"use strict";

(function () {
  function csrf() {
    const meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  }

  function fromHTML(html) {
    const template = document.createElement("template");
    template.innerHTML = html.trim();
    return template.content;
  }

  function announce(text) {
    const region = document.getElementById("announce");
    if (region && text && region.textContent !== text) {
      region.textContent = text;
    }
  }

  // a rule id as the server sends it with a refusal: R3.4, R4.4/half, T2.2
  const RULE = /^([RT]\d{1,2}(?:\.\d{1,2})?)(?:\/half)?$/;

  function notice(text, rule) {
    const region = document.getElementById("notice");
    if (!region) {
      return;
    }
    text = text || "";
    const id = typeof rule === "string" ? RULE.exec(rule) : null;
    if (!id || !text.includes(rule)) {
      region.textContent = text;
      return;
    }
    // the words as text, each mention of the rule a link to it (no HTML parsed)
    const parts = text.split(rule);
    region.replaceChildren();
    parts.forEach((part, i) => {
      if (i > 0) {
        const link = document.createElement("a");
        link.className = "rule-ref";
        link.href = (id[1].startsWith("T") ? "/rules/tournament#" : "/rules#") + id[1];
        link.textContent = rule;
        region.append(link);
      }
      region.append(document.createTextNode(part));
    });
  }

  // ---- a card's moves: pick a card, then one of its moves ----------------------

  function panelOf(button) {
    return document.getElementById(button.getAttribute("aria-controls"));
  }

  function setOpen(button, open) {
    const panel = panelOf(button);
    if (!panel) {
      return;
    }
    button.setAttribute("aria-expanded", open ? "true" : "false");
    panel.hidden = !open;
  }

  function toggle(button) {
    const open = button.getAttribute("aria-expanded") !== "true";
    for (const other of document.querySelectorAll('.pick[aria-expanded="true"]')) {
      if (other !== button) {
        setOpen(other, false);
      }
    }
    setOpen(button, open);
    if (open) {
      const first = panelOf(button).querySelector("button.move");
      if (first) {
        first.focus();
      }
    }
  }

  // ---- the table: live over the game's event stream ---------------------------------

  function initTable() {
    const live = document.getElementById("live");
    const layout = document.querySelector(".table-layout");
    if (!live || !layout) {
      return;
    }
    const game = live.dataset.game;
    const types = (layout.dataset.events || "").split(" ").filter(Boolean);
    let wanted = Number(live.dataset.position || 0);
    let busy = false;
    let again = false;
    let timer = null;
    let ended = live.dataset.status === "ended";

    function lastLogVersion() {
      const items = document.querySelectorAll("#log > li");
      return items.length ? Number(items[items.length - 1].dataset.version) : 0;
    }

    function swap(html) {
      const current = document.getElementById("live");
      const next = fromHTML(html).firstElementChild;
      if (!current || !next) {
        return;
      }
      const active = document.activeElement;
      const inside = active && current.contains(active);
      const focusId = inside ? active.id : null;
      const focusFor = inside && active.dataset ? active.dataset.for : null;
      const open = Array.from(current.querySelectorAll('.pick[aria-expanded="true"]')).map(
        (b) => b.id,
      );
      current.replaceWith(next);
      for (const id of open) {
        const button = document.getElementById(id);
        if (button) {
          setOpen(button, true);
        }
      }
      if (inside) {
        let target = focusId ? document.getElementById(focusId) : null;
        if (!target && focusFor) {
          target = document.getElementById("pick-" + focusFor);
        }
        (target || document.getElementById("live-h")).focus();
      }
      announce(next.dataset.announce);
      if (next.dataset.status === "ended") {
        ended = true;
      }
      document.dispatchEvent(new CustomEvent("opus:refreshed"));
    }

    async function refreshLog(after) {
      const whole = ended;
      const since = whole ? 0 : lastLogVersion();
      const response = await fetch(
        `/table/${game}/log?since=${since}&after=${after}`,
        { headers: { Accept: "text/html" }, credentials: "same-origin" },
      );
      if (!response.ok) {
        return;
      }
      const items = fromHTML(await response.text());
      const list = document.getElementById("log");
      const atEnd = list.scrollTop + list.clientHeight >= list.scrollHeight - 8;
      if (whole) {
        list.replaceChildren(items);
      } else {
        list.append(items);
      }
      if (atEnd) {
        list.scrollTop = list.scrollHeight;
      }
    }

    async function refresh() {
      if (busy) {
        again = true;
        return;
      }
      busy = true;
      try {
        do {
          again = false;
          const after = wanted;
          const response = await fetch(`/table/${game}/view?after=${after}`, {
            headers: { Accept: "text/html" },
            credentials: "same-origin",
          });
          if (response.ok) {
            swap(await response.text());
          }
          await refreshLog(after);
          const shown = document.getElementById("live");
          if (shown && shown.dataset.fresh === "false") {
            again = true; // a view was behind: ask again
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
        } while (again);
      } catch (error) {
        setTimeout(schedule, 1000);
      } finally {
        busy = false;
      }
    }

    function schedule() {
      clearTimeout(timer);
      timer = setTimeout(refresh, 25);
    }

    const log = document.getElementById("log");
    if (log) {
      log.scrollTop = log.scrollHeight;
    }

    // The game's stream, kept open: the browser reconnects by itself after a
    // dropped connection (with Last-Event-ID); after a refusal (a non-200
    // answer: a restarting service, a store away) it gives up for good, so
    // the page asks again itself, from the last version it heard, after the
    // refusal's Retry-After or a growing wait, and says meanwhile that the
    // table is not live (issue 37).
    let stream = null;
    let heardVersion = Number(live.dataset.version || 0);
    let wait = 1000;
    const status = document.createElement("p");
    status.id = "stream-status";
    status.className = "stream-status";
    status.setAttribute("role", "status");
    status.hidden = true;
    live.before(status);
    const russian = document.documentElement.lang === "ru";
    const offline = russian
      ? "Связь со столом потеряна: переподключаемся…"
      : "The table lost its connection: reconnecting…";

    function heard(event) {
      if (event.lastEventId && /^[0-9]+$/.test(event.lastEventId)) {
        heardVersion = Math.max(heardVersion, Number(event.lastEventId));
      }
      let line;
      try {
        line = JSON.parse(event.data);
      } catch (error) {
        return;
      }
      if (typeof line.position === "number" && line.position > wanted) {
        wanted = line.position;
      }
      schedule();
      if (event.type === "GameEnded") {
        ended = true;
        stream.close();
      }
    }

    function url() {
      return `/games/${game}/events?after_version=${heardVersion}`;
    }

    async function retryAfter() {
      // an EventSource cannot read a refusal's headers: ask once, read the
      // status and Retry-After, and hang up before any event is sent
      const control = new AbortController();
      try {
        const answer = await fetch(url(), { signal: control.signal, cache: "no-store" });
        control.abort();
        if (answer.ok) {
          return 0;
        }
        const seconds = Number(answer.headers.get("Retry-After"));
        return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : wait;
      } catch (error) {
        return wait;
      }
    }

    async function reconnect() {
      status.textContent = offline;
      status.hidden = false;
      document.getElementById("live")?.setAttribute("aria-busy", "true");
      const delay = await retryAfter();
      setTimeout(connect, delay + Math.random() * 250);
      wait = Math.min(wait * 2, 30000);
    }

    function connect() {
      if (ended) {
        return;
      }
      stream = new EventSource(url());
      stream.addEventListener("open", () => {
        wait = 1000;
        status.hidden = true;
        document.getElementById("live")?.removeAttribute("aria-busy");
        schedule(); // whatever happened meanwhile: the table as it is now
      });
      stream.addEventListener("error", () => {
        if (stream.readyState === EventSource.CLOSED && !ended) {
          reconnect();
        } else if (!ended) {
          status.textContent = offline;
          status.hidden = false;
        }
      });
      for (const type of types) {
        stream.addEventListener(type, heard);
      }
      // the game's signed checkpoints: checked by receipts.js
      stream.addEventListener("checkpoint", (event) => {
        document.dispatchEvent(new CustomEvent("opus:checkpoint", { detail: event.data }));
      });
    }
    connect();

    // The seats' clocks (RULES §11), counted down from the server's deadline
    // and the server's time (GET /games/{id}/clocks), never from this
    // browser's idea of the time; the last seconds of a seat are announced
    // once. An untimed game (its clock null) shows none.
    const panel = document.createElement("section");
    panel.id = "clocks";
    panel.className = "clocks";
    panel.hidden = true;
    panel.setAttribute("aria-label", russian ? "Часы" : "Clocks");
    const clockList = document.createElement("ul");
    const lastSeconds = document.createElement("p");
    lastSeconds.setAttribute("role", "status");
    panel.append(clockList, lastSeconds);
    status.after(panel);
    let clocks = null;
    let offset = 0; // the server's time less this browser's, in microseconds
    let warned = "";
    let timed = true;
    const WARN = 10_000_000; // the last ten seconds

    function shown(us) {
      const total = Math.max(0, Math.floor(us / 1_000_000));
      const days = Math.floor(total / 86400);
      const hours = Math.floor((total % 86400) / 3600);
      const minutes = Math.floor((total % 3600) / 60);
      const seconds = String(total % 60).padStart(2, "0");
      if (days) {
        return russian ? `${days} д ${hours} ч` : `${days} d ${hours} h`;
      }
      if (hours) {
        return `${hours}:${String(minutes).padStart(2, "0")}:${seconds}`;
      }
      return `${minutes}:${seconds}`;
    }

    function drawClocks() {
      if (!clocks) {
        return;
      }
      const now = Date.now() * 1000 + offset;
      const items = clocks.left.map((left, seat) => {
        const out = (clocks.withdrawn || []).includes(seat);
        const running = seat === clocks.turn && clocks.deadline !== null && !out;
        const us = out ? 0 : running ? Math.max(0, clocks.deadline - now) : left;
        const item = document.createElement("li");
        item.dataset.seat = String(seat);
        item.dataset.left = String(us);
        const time = out ? (russian ? "выбыло" : "withdrawn") : shown(us);
        item.textContent = `${russian ? "Место" : "Seat"} ${seat + 1}: ${time}`;
        if (running) {
          item.setAttribute("aria-current", "true");
          const key = `${seat}:${clocks.deadline}`;
          if (us <= WARN && warned !== key) {
            warned = key;
            lastSeconds.textContent = russian
              ? `У места ${seat + 1} осталось меньше 10 секунд`
              : `Seat ${seat + 1} has less than 10 seconds left`;
          }
        }
        return item;
      });
      clockList.replaceChildren(...items);
    }

    async function readClocks() {
      if (!timed) {
        return;
      }
      try {
        const answer = await fetch(`/games/${game}/clocks`, { cache: "no-store" });
        if (!answer.ok) {
          return;
        }
        const data = (await answer.json()).data;
        if (data.clock === null) {
          timed = false; // an untimed game: no clocks, not asked again
          return;
        }
        offset = data.server_time - Date.now() * 1000;
        clocks = data;
        panel.hidden = false;
        drawClocks();
      } catch (error) {
        // the stream's status says when the service is away
      }
    }
    readClocks();
    setInterval(drawClocks, 250);
    document.addEventListener("opus:refreshed", readClocks);

    document.addEventListener("click", (event) => {
      const pick = event.target.closest(".pick");
      if (pick) {
        toggle(pick);
      }
    });

    document.addEventListener("keydown", (event) => {
      if (event.key !== "Escape") {
        return;
      }
      const open = document.querySelector('.pick[aria-expanded="true"]');
      if (open) {
        setOpen(open, false);
        open.focus();
      }
    });

    document.addEventListener("submit", async (event) => {
      const form = event.target;
      if (!form.classList || !form.classList.contains("move-form")) {
        return;
      }
      event.preventDefault();
      const button = event.submitter;
      if (!button || !button.value) {
        return;
      }
      const buttons = document.querySelectorAll("#live button.move");
      for (const b of buttons) {
        b.disabled = true;
      }
      notice("");
      try {
        const response = await fetch(form.action, {
          method: "POST",
          credentials: "same-origin",
          headers: {
            "Content-Type": "application/json",
            Accept: "application/json",
            "X-CSRF-Token": csrf(),
          },
          body: JSON.stringify({
            move: JSON.parse(button.value),
            version: Number(form.dataset.version),
          }),
        });
        const answer = await response.json();
        if (!response.ok) {
          notice(answer.message, answer.rule);
        } else if (answer.position > wanted) {
          wanted = answer.position;
        }
      } catch (error) {
        notice(String(error));
      }
      for (const b of document.querySelectorAll("#live button.move")) {
        b.disabled = false;
      }
      schedule();
    });
  }

  // ---- the replay: a slider, buttons and keys ------------------------------------------

  let uploaded = null; // the export file chosen on this page, kept for stepping

  function initUpload() {
    const form = document.getElementById("upload-form");
    if (!form) {
      return;
    }
    form.addEventListener("submit", async (event) => {
      const input = form.querySelector('input[type="file"]');
      if (!input.files.length) {
        return;
      }
      event.preventDefault();
      uploaded = input.files[0];
      const response = await fetch(form.action, {
        method: "POST",
        body: new FormData(form),
        credentials: "same-origin",
        headers: { Accept: "text/html", "X-CSRF-Token": csrf() },
      });
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const main = page.querySelector("main");
      if (main) {
        document.querySelector("main").replaceWith(main);
        document.title = page.title;
        initUpload();
        initReplay();
        const heading = document.querySelector("main h1");
        if (heading) {
          heading.setAttribute("tabindex", "-1");
          heading.focus();
        }
      }
    });
  }

  function initReplay() {
    const nav = document.getElementById("replay-nav");
    if (!nav) {
      return;
    }
    const slider = nav.querySelector("#step");
    const output = nav.querySelector("#step-out");
    const mode = nav.dataset.mode;
    const game = nav.dataset.game;
    const total = Number(slider.max);
    let timer = null;
    let serial = 0;
    if (mode === "upload" && uploaded) {
      const again = nav.querySelector(".upload-again");
      if (again) {
        again.hidden = true;
      }
    }

    function ready() {
      return mode === "stored" || uploaded !== null;
    }

    async function show(n, focusStep) {
      n = Math.max(1, Math.min(total, Number(n)));
      slider.value = String(n);
      const mine = ++serial;
      let response;
      if (mode === "stored") {
        response = await fetch(`/replay/${game}/view?step=${n}`, {
          headers: { Accept: "text/html" },
          credentials: "same-origin",
        });
      } else {
        const data = new FormData();
        data.append("export", uploaded);
        data.append("step", String(n));
        data.append("part", "view");
        data.append("csrf", csrf());
        response = await fetch("/replay", {
          method: "POST",
          body: data,
          credentials: "same-origin",
          headers: { Accept: "text/html", "X-CSRF-Token": csrf() },
        });
      }
      if (!response.ok || mine !== serial) {
        return;
      }
      const next = fromHTML(await response.text()).firstElementChild;
      const current = document.getElementById("replay-step");
      if (!next || !current) {
        return;
      }
      current.replaceWith(next);
      output.textContent = next.dataset.announce;
      announce(next.dataset.announce);
      if (mode === "stored") {
        history.replaceState(null, "", `?step=${n}`);
      }
      if (focusStep) {
        document.getElementById("step-h").focus();
      }
    }

    function current() {
      return Number(slider.value);
    }

    slider.addEventListener("input", () => {
      if (!ready()) {
        return;
      }
      clearTimeout(timer);
      timer = setTimeout(() => show(slider.value, false), 40);
    });

    nav.addEventListener("submit", (event) => {
      if (ready()) {
        event.preventDefault();
        show(slider.value, true);
      }
    });

    nav.addEventListener("click", (event) => {
      const button = event.target.closest("[data-go]");
      if (!button || !ready()) {
        return;
      }
      const go = button.dataset.go;
      const n =
        go === "first" ? 1 : go === "last" ? total : go === "previous" ? current() - 1 : current() + 1;
      show(n, false);
    });

    replay = { show: show, ready: ready, current: current };
  }

  let replay = null; // the replay on this page: its show(n), ready() and current()

  function initReplayKeys() {
    document.addEventListener("click", (event) => {
      const link = event.target.closest("#replay-step [data-step]");
      if (!link || !replay || !replay.ready()) {
        return;
      }
      event.preventDefault();
      replay.show(link.dataset.step, true);
    });

    document.addEventListener("keydown", (event) => {
      const tag = event.target.tagName;
      if (!replay || !replay.ready() || tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") {
        return;
      }
      if (event.altKey || event.ctrlKey || event.metaKey) {
        return;
      }
      if (event.key === "ArrowLeft") {
        event.preventDefault();
        replay.show(replay.current() - 1, false);
      } else if (event.key === "ArrowRight") {
        event.preventDefault();
        replay.show(replay.current() + 1, false);
      }
    });
  }

  document.addEventListener("DOMContentLoaded", () => {
    initTable();
    initUpload();
    initReplay();
    initReplayKeys();
  });
})();
