// Receipts in the browser (README, Receipts): the table page checks that
// the game's history it is shown is the one the service signed for this
// browser before, and the one the witnesses vouch every player is shown.
//
// - Trust, pinned at first use (localStorage "opus.receipts.v1:trust"): the
//   service's key, the witnesses and how many must vouch (a majority), as
//   the service's /.well-known/opus-receipts first named them; shown to the
//   person with the key ids. A key the service later serves is taken only
//   through a chain of key transitions signed by the pinned key (and the new
//   one); otherwise it is an alarm.
// - Each game's latest checkpoint is kept (one key a game, written whole) and
//   every new one checked against it: signed by the trusted key (Ed25519,
//   C2SP signed-note, WebCrypto; under the log's origin as its key name, or
//   the plain name older checkpoints carry), the same root at the same size,
//   a consistency proof (RFC 9162) from the kept size. A kept checkpoint is
//   never overwritten by a contradicting one.
// - The game's head is proved in the service's global log, in a checkpoint
//   cosigned (C2SP tlog-cosignature) by a quorum of the trusted witnesses,
//   no older than the freshness bound; that checkpoint is kept as the game's
//   are, and sent to each trusted witness (gossip, C2SP tlog-witness), which
//   refuses one that contradicts what it vouched for.
// - Every contradiction is an alarm (role=alert), its signed statements kept
//   under a key of their own ("opus.receipts.v1:evidence:…") and shown again
//   on every later visit; a missing or stale witness's word is a warning.
//   A kept value this browser cannot read is its own storage's, set aside.
(function () {
  "use strict";
  const PREFIX = "opus.receipts.v1:";
  const TRUST = `${PREFIX}trust`;
  const EVIDENCE = `${PREFIX}evidence:`;
  const GLOBAL = `${PREFIX}global:`;
  const DASH = "\u2014 ";
  const ED25519 = 0x01;
  const COSIGNATURE = 0x04;
  const TRANSITION = "opus key transition";
  const FRESH_MINUTES = 60;
  const WAIT_TRIES = 20; // the global log is published every 0.5 s (at most 1 s)
  const PUBLISHED_MS = 1200;
  const UNANSWERED = "unanswered";
  const encoder = new TextEncoder();

  // ---- bytes and hashes ------------------------------------------------------------

  function b64(text) {
    const raw = atob(text);
    const out = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i += 1) {
      out[i] = raw.charCodeAt(i);
    }
    return out;
  }

  function toB64(bytes) {
    return btoa(String.fromCharCode(...bytes));
  }

  function hex(bytes) {
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function equal(a, b) {
    if (a.length !== b.length) {
      return false;
    }
    for (let i = 0; i < a.length; i += 1) {
      if (a[i] !== b[i]) {
        return false;
      }
    }
    return true;
  }

  function concat(...parts) {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const part of parts) {
      out.set(part, at);
      at += part.length;
    }
    return out;
  }

  async function sha256(bytes) {
    return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  }

  async function nodeHash(left, right) {
    return sha256(concat(new Uint8Array([1]), left, right));
  }

  async function leafHash(data) {
    return sha256(concat(new Uint8Array([0]), data));
  }

  // RFC 9162 §2.1.3.2: that leaf ``index`` of a tree of ``size`` hashes to ``leaf``.
  async function included(index, size, leaf, proof, root) {
    if (index >= size) {
      return false;
    }
    let fn = index;
    let sn = size - 1;
    let r = leaf;
    for (const p of proof) {
      if (sn === 0) {
        return false;
      }
      if (fn & 1 || fn === sn) {
        r = await nodeHash(p, r);
        while (!(fn & 1) && fn !== 0) {
          fn >>= 1;
          sn >>= 1;
        }
      } else {
        r = await nodeHash(r, p);
      }
      fn >>= 1;
      sn >>= 1;
    }
    return sn === 0 && equal(r, root);
  }

  // RFC 9162 §2.1.4.2: that (m, first) is a prefix of (n, second).
  async function consistent(m, n, first, second, proof) {
    if (m === n) {
      return proof.length === 0 && equal(first, second);
    }
    if (m === 0 || m > n || proof.length === 0) {
      return m === 0 && proof.length === 0;
    }
    const path = proof.slice();
    if ((m & (m - 1)) === 0) {
      path.unshift(first);
    }
    let fn = m - 1;
    let sn = n - 1;
    while (fn & 1) {
      fn >>= 1;
      sn >>= 1;
    }
    let fr = path[0];
    let sr = path[0];
    for (const c of path.slice(1)) {
      if (sn === 0) {
        return false;
      }
      if (fn & 1 || fn === sn) {
        fr = await nodeHash(c, fr);
        sr = await nodeHash(c, sr);
        while (!(fn & 1) && fn !== 0) {
          fn >>= 1;
          sn >>= 1;
        }
      } else {
        sr = await nodeHash(sr, c);
      }
      fn >>= 1;
      sn >>= 1;
    }
    return sn === 0 && equal(fr, first) && equal(sr, second);
  }

  // ---- keys and notes (C2SP signed-note, tlog-cosignature) --------------------------

  async function keyId(name, type, publicKey) {
    const digest = await sha256(concat(encoder.encode(`${name}\n`), new Uint8Array([type]),
      publicKey));
    return digest.slice(0, 4);
  }

  // A vkey, "<name>+<hex key id>+base64(type ‖ public key)", its id checked.
  async function parseVkey(vkey) {
    const first = vkey.indexOf("+");
    const second = vkey.indexOf("+", first + 1);
    if (first < 1 || second < 0) {
      throw new Error("not a vkey");
    }
    const raw = b64(vkey.slice(second + 1));
    if (raw.length !== 33 || (raw[0] !== ED25519 && raw[0] !== COSIGNATURE)) {
      throw new Error("not an Ed25519 vkey");
    }
    const key = await verifier(vkey.slice(0, first), raw[0], raw.slice(1));
    if (hex(key.id) !== vkey.slice(first + 1, second)) {
      throw new Error("a vkey whose key id is not its key's");
    }
    return key;
  }

  // One public key under one name: what its signatures carry (name, key id).
  async function verifier(name, type, publicKey) {
    const key = await crypto.subtle.importKey("raw", publicKey, { name: "Ed25519" }, false,
      ["verify"]);
    return { name, type, publicKey, id: await keyId(name, type, publicKey), key };
  }

  function parseNote(note) {
    const split = note.lastIndexOf("\n\n");
    if (split < 0 || !note.endsWith("\n")) {
      throw new Error("not a signed note");
    }
    const text = note.slice(0, split + 1);
    const signatures = note.slice(split + 2, -1).split("\n").map((line) => {
      if (!line.startsWith(DASH)) {
        throw new Error("not a signature line");
      }
      const [name, sig] = line.slice(DASH.length).split(" ");
      const raw = b64(sig);
      return { name, id: raw.slice(0, 4), sig: raw.slice(4) };
    });
    return { note, text, signatures };
  }

  // A checkpoint (C2SP tlog-checkpoint): its note, origin, size and root.
  function parseCheckpoint(note) {
    const point = parseNote(note);
    const lines = point.text.slice(0, -1).split("\n");
    if (lines.length < 3 || !/^(0|[1-9][0-9]*)$/.test(lines[1])) {
      throw new Error("not a checkpoint");
    }
    const root = b64(lines[2]);
    if (root.length !== 32) {
      throw new Error("a root is 32 bytes");
    }
    return { ...point, origin: lines[0], size: Number(lines[1]), root };
  }

  // Whether ``key`` signed the note: false when it did not sign, an error when
  // its signature fails (signed-note: a known key's bad signature rejects the
  // note). A cosignature's time (seconds) is returned for type 0x04.
  async function signedBy(point, key) {
    let found = false;
    let time = 0;
    for (const s of point.signatures) {
      if (s.name !== key.name || !equal(s.id, key.id)) {
        continue;
      }
      let message = encoder.encode(point.text);
      let sig = s.sig;
      if (key.type === COSIGNATURE) {
        if (sig.length !== 72) {
          throw new Error("a cosignature is a time and a signature");
        }
        time = Number(new DataView(sig.buffer, sig.byteOffset, 8).getBigUint64(0));
        message = encoder.encode(`cosignature/v1\ntime ${time}\n${point.text}`);
        sig = sig.slice(8);
      }
      if (!(await crypto.subtle.verify({ name: "Ed25519" }, key.key, sig, message))) {
        throw new Error("a signature of a trusted key fails");
      }
      found = true;
    }
    return found && (key.type === COSIGNATURE ? time : true);
  }

  // A log's checkpoint signed by one of ``keys`` (the trusted key, then those
  // it replaced), under the origin as the key's name or the key's own name.
  async function signedCheckpoint(note, keys) {
    const point = parseCheckpoint(note);
    for (const key of keys) {
      const named = await verifier(point.origin, ED25519, key.publicKey);
      if (await signedBy(point, named) || await signedBy(point, key)) {
        return point;
      }
    }
    throw new Error("not signed by a trusted key");
  }

  // ---- what the page says -----------------------------------------------------------

  let words = null;

  function say(key, values = {}) {
    if (!words) {
      words = {};
      const template = document.getElementById("receipts-words");
      if (template) {
        for (const span of template.content.querySelectorAll("[data-key]")) {
          words[span.dataset.key] = span.textContent;
        }
      }
    }
    return (words[key] || key).replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
  }

  function when(seconds) {
    return new Date(seconds * 1000).toLocaleString(document.documentElement.lang || undefined,
      { dateStyle: "medium", timeStyle: "medium" });
  }

  function describe(point) {
    return say("point", { size: point.size, root: toB64(point.root).slice(0, 12) });
  }

  const lines = new Map(); // "log", "key", "witness": {state, text}, replaced each check
  const alarms = []; // this visit's and the evidence kept before: shown until reloaded away

  function box() {
    let shown = document.getElementById("receipts");
    if (!shown) {
      shown = document.createElement("div");
      shown.id = "receipts";
      const main = document.getElementById("main") || document.body;
      main.insertBefore(shown, main.firstChild);
    }
    return shown;
  }

  function render() {
    const shown = box();
    const all = [...alarms.map((text) => ({ state: "failed", text })), ...lines.values()];
    const rank = ["failed", "warning", "corrupt", "checking", "ok"];
    const state = all.length
      ? rank.find((r) => all.some((l) => l.state === r)) : "checking";
    shown.className = `receipts receipts-${state}`;
    shown.setAttribute("role", state === "failed" ? "alert" : "status");
    shown.dataset.state = state;
    shown.replaceChildren(...all.map((line) => {
      const p = document.createElement("p");
      p.className = `receipts-${line.state}`;
      p.textContent = line.text;
      return p;
    }));
  }

  function line(name, state, text) {
    lines.set(name, { state, text });
    render();
  }

  // An alarm: shown, and its statements kept under a key of their own.
  const alarmed = new Set();

  function alarm(kind, text, statements, about) {
    if (alarmed.has(`${kind}:${about}`)) {
      return;
    }
    alarmed.add(`${kind}:${about}`);
    const record = { kind, about, seen_at: new Date().toISOString(), page: location.pathname,
      words: text, statements };
    try {
      localStorage.setItem(`${EVIDENCE}${record.seen_at}:${kind}:${about}`,
        JSON.stringify(record));
      alarms.push(text);
    } catch (error) {
      alarms.push(`${text} ${say("storage_full")}`);
    }
    render();
  }

  function keptEvidence(game, origins) {
    const found = [];
    for (let i = 0; i < localStorage.length; i += 1) {
      const key = localStorage.key(i);
      if (key && key.startsWith(EVIDENCE)) {
        try {
          const record = JSON.parse(localStorage.getItem(key));
          if (record.about === game || origins.includes(record.about)) {
            found.push(record);
          }
        } catch (error) {
          // not a record this page wrote: left as it is
        }
      }
    }
    found.sort((a, b) => (a.seen_at < b.seen_at ? -1 : 1));
    for (const record of found) {
      alarms.push(say("evidence_kept",
        { time: when(Date.parse(record.seen_at) / 1000), words: record.words }));
    }
    render();
  }

  // ---- trust ---------------------------------------------------------------------

  function readJson(key) {
    try {
      return JSON.parse(localStorage.getItem(key));
    } catch (error) {
      return null;
    }
  }

  // The chain of key transitions from ``from`` to ``to`` (each a note whose
  // text names the old and the new vkey, signed by both), or null.
  async function transitions(from, to, notes) {
    let current = from;
    let last = null;
    for (const note of notes) {
      try {
        const point = parseNote(note);
        const [title, oldVkey, newVkey, time, end] = point.text.split("\n");
        if (title !== TRANSITION || oldVkey !== current || end !== "" || !time) {
          continue;
        }
        const oldKey = await parseVkey(oldVkey);
        const newKey = await parseVkey(newVkey);
        if (await signedBy(point, oldKey) && await signedBy(point, newKey)) {
          current = newVkey;
          last = time;
        }
      } catch (error) {
        // a transition that does not verify joins nothing
      }
    }
    return current === to ? { time: last } : null;
  }

  let trustPromise = null;

  // What this browser trusts: pinned at first use, moved to a new key only
  // through the old key's signed transition. ``changed``: the key the service
  // serves now when no such chain reaches it (an alarm, the pin kept).
  function trust() {
    if (!trustPromise) {
      trustPromise = (async () => {
        const response = await fetch("/.well-known/opus-receipts", { credentials: "same-origin" });
        if (!response.ok) {
          throw new Error("no receipts here");
        }
        const doc = await response.json();
        let pinned = readJson(TRUST);
        let rotated = null;
        let changed = null;
        if (!pinned || !pinned.vkey) {
          const witnesses = (doc.witnesses || []).map((w) => ({ url: w.url, vkey: w.vkey }));
          pinned = { vkey: doc.vkey, previous: [], witnesses,
            quorum: Math.floor(witnesses.length / 2) + (witnesses.length ? 1 : 0),
            fresh_minutes: FRESH_MINUTES, pinned_at: Date.now() / 1000 };
          localStorage.setItem(TRUST, JSON.stringify(pinned));
        } else if (doc.vkey !== pinned.vkey) {
          const chain = await transitions(pinned.vkey, doc.vkey, doc.key_transitions || []);
          if (chain) {
            rotated = { old: pinned.vkey, new: doc.vkey, time: chain.time };
            pinned = { ...pinned, vkey: doc.vkey, previous: [pinned.vkey, ...pinned.previous] };
            localStorage.setItem(TRUST, JSON.stringify(pinned));
          } else {
            changed = doc.vkey;
          }
        }
        const keys = [];
        for (const vkey of [pinned.vkey, ...(pinned.previous || [])]) {
          keys.push(await parseVkey(vkey));
        }
        const witnesses = [];
        for (const w of pinned.witnesses) {
          witnesses.push({ url: w.url.replace(/\/+$/, ""), key: await parseVkey(w.vkey) });
        }
        return { pinned, keys, witnesses, rotated, changed };
      })();
    }
    return trustPromise;
  }

  function keyWords(key) {
    return `${key.name} (${hex(key.id)})`;
  }

  function showTrust(t, witnessed) {
    const panel = document.getElementById("receipts-trust");
    const body = document.getElementById("receipts-trust-body");
    if (!panel || !body) {
      return;
    }
    const item = (text) => {
      const li = document.createElement("li");
      li.textContent = text;
      return li;
    };
    const keyList = document.createElement("ul");
    keyList.append(item(`${say("trust_key")}: ${keyWords(t.keys[0])}`));
    const heading = document.createElement("p");
    heading.textContent = say("trust_witnesses",
      { quorum: t.pinned.quorum, m: t.witnesses.length });
    const witnessList = document.createElement("ul");
    witnessList.append(...(t.witnesses.length
      ? t.witnesses.map((w) => item(`${keyWords(w.key)} — ${w.url}`))
      : [item(say("trust_none"))]));
    const pinned = document.createElement("p");
    pinned.textContent = `${say("trust_pinned", { time: when(t.pinned.pinned_at) })} ` +
      say("trust_fresh", { bound: t.pinned.fresh_minutes });
    body.replaceChildren(keyList, heading, witnessList, pinned);
    const summary = panel.querySelector("summary");
    if (summary && witnessed) {
      summary.textContent = witnessed;
    }
    panel.hidden = false;
  }

  // ---- a game's log --------------------------------------------------------------

  // The service's answer: its JSON; null when it says there is none (a 4xx:
  // its statement, held against it); UNANSWERED when it could not answer
  // (away, a 5xx): no claim either way, the check is made again later.
  async function getJson(url) {
    let response;
    try {
      response = await fetch(url, { credentials: "same-origin" });
    } catch (error) {
      return UNANSWERED;
    }
    if (response.status >= 500) {
      return UNANSWERED;
    }
    return response.ok ? response.json() : null;
  }

  // The game's kept checkpoint, or null; a value this browser cannot read (or
  // that no key it trusts signed) is set aside under a key of its own.
  async function keptCheckpoint(game, t) {
    const key = PREFIX + game;
    const stored = localStorage.getItem(key);
    if (stored === null) {
      return null;
    }
    try {
      const kept = await signedCheckpoint(stored, t.keys);
      if (!kept.origin.endsWith(`/${game}`)) {
        throw new Error("another log's");
      }
      return kept;
    } catch (error) {
      localStorage.setItem(`${key}:set-aside:${new Date().toISOString()}`, stored);
      localStorage.removeItem(key);
      line("log", "corrupt", say("corrupt"));
      return null;
    }
  }

  // A checkpoint of the game, from the page's load or the stream: one older
  // than the kept is old news if the service proves the kept extends it, and
  // a rollback if it cannot (its log no longer holds what it signed).
  async function checkGame(game, note) {
    const t = await trust();
    const key = PREFIX + game;
    if (t.changed) {
      const stored = localStorage.getItem(key);
      alarm("key-changed", say("key_changed", { new: t.changed, old: t.pinned.vkey }),
        [t.pinned.vkey, t.changed, stored, note].filter((s) => s !== null), game);
      return;
    }
    let point;
    try {
      point = await signedCheckpoint(note, t.keys.slice(0, 1));
      if (!point.origin.endsWith(`/${game}`)) {
        throw new Error("another log's");
      }
    } catch (error) {
      alarm("unsigned", say("unsigned"),
        [note, localStorage.getItem(key)].filter((s) => s !== null), game);
      return;
    }
    const kept = await keptCheckpoint(game, t);
    if (kept !== null) {
      const [small, large] = kept.size <= point.size ? [kept, point] : [point, kept];
      let fine = small.size === large.size && equal(small.root, large.root);
      if (small.size !== large.size) {
        const answer = await getJson(
          `/receipts/logs/${game}/consistency?old=${small.size}&size=${large.size}`);
        if (answer === UNANSWERED) {
          line("log", "warning", say("unanswered"));
          return;
        }
        if (answer) {
          try {
            const given = await signedCheckpoint(answer.checkpoint, t.keys.slice(0, 1));
            fine = equal(given.root, large.root) && await consistent(
              small.size, large.size, small.root, large.root, answer.proof.map(b64));
          } catch (error) {
            fine = false;
          }
        }
      }
      if (!fine) {
        const kind = point.size < kept.size ? "rollback" : "fork";
        alarm(kind, say(kind, { kept: describe(kept), now: describe(point) }),
          [kept.note, point.note], game);
        return;
      }
    }
    if (kept === null || point.size > kept.size) {
      localStorage.setItem(key, point.note);
    }
    const head = kept !== null && kept.size > point.size ? kept : point;
    if (lines.get("log")?.state !== "corrupt") {
      line("log", "ok", kept ? say("ok_before", { size: head.size, kept: kept.size })
        : say("ok_first", { size: head.size }));
    }
    witnessSoon(game, head);
  }

  async function gameGone(game) {
    const t = await trust();
    const kept = await keptCheckpoint(game, t);
    if (kept !== null) {
      alarm("vanished", say("vanished", { kept: describe(kept) }), [kept.note], game);
    } else if (!alarms.length) {
      document.getElementById("receipts-box")?.remove(); // nothing this browser saw of it
    }
  }

  // ---- the global log and its witnesses ------------------------------------------

  function uuidBytes(id) {
    return new Uint8Array(id.replace(/-/g, "").match(/../g).map((h) => parseInt(h, 16)));
  }

  function u64(n) {
    const out = new Uint8Array(8);
    new DataView(out.buffer).setBigUint64(0, BigInt(n));
    return out;
  }

  // The receipt of the game's head (the event at its size) in the service's
  // tree now: { chain } (its chain value, proved in the head's tree) when the
  // tree is the head's; { newer } (that tree's signed checkpoint, to be
  // checked as the game's) when the game has moved on; { text } when it
  // proves nothing of the head (evidence); UNANSWERED when the service could
  // not answer. Asking for the tree now, never an older size: the service
  // signs the checkpoint it answers with.
  async function headReceipt(game, head, t) {
    let response;
    try {
      response = await fetch(`/receipts/logs/${game}/receipt?version=${head.size}`,
        { credentials: "same-origin" });
    } catch (error) {
      return UNANSWERED;
    }
    if (response.status >= 500) {
      return UNANSWERED;
    }
    const text = await response.text();
    try {
      if (!response.ok) {
        throw new Error("no receipt");
      }
      const split = text.indexOf("\n\n");
      const proofLines = text.slice(0, split).split("\n");
      const point = await signedCheckpoint(text.slice(split + 2), t.keys.slice(0, 1));
      if (point.origin !== head.origin && !point.origin.endsWith(`/${game}`)) {
        throw new Error("another log's");
      }
      if (point.size > head.size) {
        return { newer: point.note };
      }
      let at = 1;
      const extra = proofLines[at].startsWith("extra ") ? b64(proofLines[at].slice(6)) : null;
      at += extra ? 1 : 0;
      const index = Number(proofLines[at].slice("index ".length));
      const hashes = proofLines.slice(at + 1).map(b64);
      if (point.size === head.size && equal(point.root, head.root) && extra !== null &&
        index === head.size - 1 &&
        (await included(index, head.size, await leafHash(extra), hashes, head.root))) {
        return { chain: extra };
      }
    } catch (error) {
      // proves nothing of the head
    }
    return { text };
  }

  // The witnesses' cosignatures on a checkpoint: each trusted witness's time.
  async function cosignatures(point, t) {
    const times = new Map();
    for (const w of t.witnesses) {
      try {
        const time = await signedBy(point, w.key);
        if (time) {
          times.set(w.url, time);
        }
      } catch (error) {
        // a failing cosignature vouches for nothing
      }
    }
    return times;
  }

  // The service's global log as this browser keeps it: a new checkpoint is
  // taken only if it extends the kept one, an older one only if the kept
  // extends it (else a rollback). "kept", "alarm", or UNANSWERED.
  async function keepGlobal(point, shard, t) {
    const key = GLOBAL + point.origin;
    const stored = localStorage.getItem(key);
    let kept = null;
    if (stored !== null) {
      try {
        kept = await signedCheckpoint(stored, t.keys);
      } catch (error) {
        localStorage.setItem(`${key}:set-aside:${new Date().toISOString()}`, stored);
      }
    }
    if (kept !== null) {
      const older = point.size < kept.size;
      const fine = await (older ? joined(point, kept, shard, t) : joined(kept, point, shard, t));
      if (fine === UNANSWERED) {
        return UNANSWERED;
      }
      if (!fine) {
        const kind = older ? "global_rollback" : "global_fork";
        alarm(kind, say(kind, { kept: describe(kept), now: describe(point) }),
          [kept.note, point.note], point.origin);
        return "alarm";
      }
    }
    if (kept === null || point.size > kept.size) {
      localStorage.setItem(key, point.note);
    }
    return "kept";
  }

  // The service's consistency proof of its global log from ``small`` to
  // ``large`` (both signed), verified here: whether one extends the other.
  async function joined(small, large, shard, t) {
    if (small.size === large.size) {
      return equal(small.root, large.root);
    }
    const proof = await globalProof(small.size, large.size, shard);
    if (proof === null || proof === UNANSWERED) {
      return proof === null ? false : UNANSWERED;
    }
    try {
      const given = await signedCheckpoint(proof.checkpoint, t.keys.slice(0, 1));
      return equal(given.root, large.root) &&
        (await consistent(small.size, large.size, small.root, large.root, proof.hashes));
    } catch (error) {
      return false;
    }
  }

  async function globalProof(old, size, shard) {
    const answer = await getJson(`/receipts/consistency?old=${old}&size=${size}&shard=${shard}`);
    if (answer === UNANSWERED || answer === null) {
      return answer;
    }
    return { checkpoint: answer.checkpoint, hashes: answer.proof.map(b64) };
  }

  function originHash(origin) {
    return sha256(encoder.encode(origin)).then(hex);
  }

  // Gossip with one witness: what it vouched for, compared with ``point``;
  // ``point`` sent to it with the proof from its size when it is behind.
  // The time it vouches for this log (or one extending it), or null.
  async function gossip(witness, point, shard, t) {
    const name = keyWords(witness.key);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      let theirs = null;
      let response;
      try {
        response = await fetch(`${witness.url}/${await originHash(point.origin)}/checkpoint`,
          { credentials: "omit" });
      } catch (error) {
        return { away: name };
      }
      if (response.ok) {
        try {
          theirs = await signedCheckpoint(await response.text(), t.keys.slice(0, 1));
          if (theirs.origin !== point.origin || !(await signedBy(theirs, witness.key))) {
            theirs = null;
          }
        } catch (error) {
          theirs = null;
        }
        if (theirs === null) {
          return { away: name };
        }
      } else if (response.status !== 404) {
        return { away: name };
      }
      if (theirs !== null && theirs.size >= point.size) {
        const fine = await joined(point, theirs, shard, t);
        if (fine === UNANSWERED) {
          return { away: name };
        }
        if (!fine) {
          alarm("witness-fork", say("witness_fork",
            { witness: name, theirs: describe(theirs), ours: describe(point) }),
          [point.note, theirs.note], point.origin);
          return { alarm: true };
        }
        return { time: await signedBy(theirs, witness.key) };
      }
      const old = theirs === null ? 0 : theirs.size;
      let hashes = [];
      if (old > 0) {
        const proof = await globalProof(old, point.size, shard);
        if (proof === UNANSWERED) {
          return { away: name };
        }
        hashes = proof === null ? [] : proof.hashes; // none: the witness judges without
      }
      const body = `old ${old}\n${hashes.map((h) => `${toB64(h)}\n`).join("")}\n${point.note}`;
      let answer;
      try {
        answer = await fetch(`${witness.url}/add-checkpoint`,
          { method: "POST", body, credentials: "omit" });
      } catch (error) {
        return { away: name };
      }
      const said = await answer.text();
      if (answer.status === 200) {
        const cosigned = { ...point, signatures: parseNote(`${point.text}\n${said}`).signatures };
        try {
          return { time: await signedBy(cosigned, witness.key) || null };
        } catch (error) {
          return { away: name };
        }
      }
      if (answer.status === 409) {
        continue; // it moved on meanwhile: compare again with what it holds now
      }
      if (answer.status === 422 || (answer.status === 400 && old > point.size)) {
        alarm("witness-refused", say("witness_refused", { witness: name, ours: describe(point) }),
          [point.note, theirs ? theirs.note : "", `${answer.status} ${said}`], point.origin);
        return { alarm: true };
      }
      return { away: name };
    }
    return { away: name };
  }

  const pending = new Map();

  // The witnesses' check of the game's head, once its moves pause a moment
  // and the service's publisher (woken by each command, every 0.5 s at most
  // 1 s) has put it in the global log: asked before, it is a 404 to wait out.
  function witnessSoon(game, head) {
    clearTimeout(pending.get(game));
    pending.set(game, setTimeout(() => {
      enqueue(() => checkWitnessed(game, head, 0));
    }, PUBLISHED_MS));
  }

  // Whether this browser kept a newer head of the game: its own check comes.
  function newerKept(game, head) {
    try {
      return parseCheckpoint(localStorage.getItem(PREFIX + game)).size > head.size;
    } catch (error) {
      return false;
    }
  }

  async function checkWitnessed(game, head, tries) {
    const t = await trust();
    if (newerKept(game, head)) {
      return;
    }
    const again = (words) => {
      if (tries < WAIT_TRIES) {
        line("witness", "checking", say("waiting"));
        setTimeout(() => enqueue(() => checkWitnessed(game, head, tries + 1)), 1000);
      } else {
        line("witness", "warning", say(words));
      }
    };
    const inclusion = await getJson(
      `/receipts/inclusion?aggregate_id=${game}&version=${head.size}`);
    if (inclusion === null || inclusion === UNANSWERED) {
      again(inclusion === null ? "not_public" : "unanswered");
      return;
    }
    let point;
    try {
      point = await signedCheckpoint(inclusion.checkpoint, t.keys.slice(0, 1));
    } catch (error) {
      alarm("unsigned", say("unsigned"), [inclusion.checkpoint], game);
      return;
    }
    const receipt = await headReceipt(game, head, t);
    if (receipt === UNANSWERED) {
      again("unanswered");
      return;
    }
    if (receipt.newer) {
      await checkGame(game, receipt.newer); // the game moved on: its newer head is checked
      return;
    }
    const fine = receipt.chain !== undefined && point.origin === inclusion.origin &&
      await included(inclusion.index, point.size,
        await leafHash(concat(uuidBytes(game), u64(head.size), receipt.chain)),
        inclusion.proof.map(b64), point.root);
    if (!fine) {
      alarm("head-missing", say("head_missing", { now: describe(head) }),
        [head.note, inclusion.checkpoint, receipt.text || ""], game);
      return;
    }
    const globalKept = await keepGlobal(point, inclusion.shard, t);
    if (globalKept !== "kept") {
      if (globalKept === UNANSWERED) {
        again("unanswered");
      }
      return;
    }
    const times = await cosignatures(point, t);
    const away = [];
    for (const w of t.witnesses) {
      const told = await gossip(w, point, inclusion.shard, t);
      if (told.alarm) {
        return;
      }
      if (told.away) {
        away.push(told.away);
      }
      if (told.time && (!times.has(w.url) || told.time > times.get(w.url))) {
        times.set(w.url, told.time);
      }
    }
    judgeWitnesses(t, times, away);
  }

  function judgeWitnesses(t, times, away) {
    const m = t.witnesses.length;
    const quorum = t.pinned.quorum;
    if (m === 0) {
      line("witness", "warning", say("no_witnesses"));
      showTrust(t, null);
      return;
    }
    const newest = [...times.values()].sort((a, b) => b - a);
    const n = newest.length;
    if (n < quorum) {
      const more = away.map((name) => say("witness_away", { witness: name })).join(" ");
      line("witness", "warning", `${say("unwitnessed", { n, quorum, m })} ${more}`.trim());
      showTrust(t, null);
      return;
    }
    const asOf = newest[quorum - 1];
    const witnessed = say("witnessed", { n, m, time: when(asOf) });
    if (Date.now() / 1000 - asOf > t.pinned.fresh_minutes * 60) {
      line("witness", "warning",
        `${witnessed} ${say("stale", { time: when(asOf), bound: t.pinned.fresh_minutes })}`);
    } else {
      line("witness", "ok", witnessed);
    }
    showTrust(t, witnessed);
  }

  // ---- wiring ----------------------------------------------------------------------

  let queue = Promise.resolve();

  function enqueue(task) {
    queue = queue.then(task).catch(() => {});
    return queue;
  }

  document.addEventListener("opus:checkpoint", (event) => {
    try {
      const message = JSON.parse(event.detail);
      enqueue(() => checkGame(message.aggregate_id, message.checkpoint));
    } catch (error) {
      // not a checkpoint message: nothing to check
    }
  });

  document.addEventListener("DOMContentLoaded", () => {
    // the table page's game; or, on the page saying a game is not there, that game
    const where = document.getElementById("live") || document.getElementById("receipts-box");
    if (!where || !where.dataset.game || !window.crypto || !crypto.subtle) {
      return;
    }
    const game = where.dataset.game;
    enqueue(async () => {
      let t;
      try {
        t = await trust();
      } catch (error) {
        document.getElementById("receipts-box")?.remove(); // no receipts here
        return;
      }
      keptEvidence(game, Object.keys(localStorage)
        .filter((k) => k.startsWith(GLOBAL)).map((k) => k.slice(GLOBAL.length)));
      if (t.rotated) {
        line("key", "ok", say("key_rotated", { new: keyWords(t.keys[0]),
          old: keyWords(await parseVkey(t.rotated.old)), time: t.rotated.time }));
      }
      showTrust(t, null);
      const response = await fetch(`/receipts/logs/${game}/checkpoint`,
        { credentials: "same-origin" });
      if (response.status === 404) {
        await gameGone(game);
      } else if (response.ok) {
        await checkGame(game, await response.text());
      }
    });
  });
})();
