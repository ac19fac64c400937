// Receipts in the browser (README, Receipts): the table page keeps each
// game's latest checkpoint in this browser (localStorage, one key a game,
// written whole: a key's value is replaced at once or not at all) and checks
// every new one against it: signed by the service's key (Ed25519, C2SP
// signed-note, WebCrypto), the same root at the same size, and a consistency
// proof (RFC 6962, verified as RFC 9162 says) from the kept size to the new
// one. A failure is shown at once (role=alert) and its two signed
// checkpoints kept; a kept value this browser cannot read is its own
// storage's corruption, said so plainly and replaced, never an alarm.
(function () {
  "use strict";
  const PREFIX = "opus.receipts.v1:";
  const DASH = "\u2014 ";
  let keyPromise = null;

  function b64(text) {
    const raw = atob(text);
    const out = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i += 1) {
      out[i] = raw.charCodeAt(i);
    }
    return out;
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

  // The service's key, from its well-known path: name, key id, public key.
  function serviceKey() {
    if (!keyPromise) {
      keyPromise = (async () => {
        const response = await fetch("/.well-known/opus-receipts", { credentials: "same-origin" });
        if (!response.ok) {
          throw new Error("no receipts here");
        }
        const doc = await response.json();
        const [name, id, material] = doc.vkey.split("+", 3);
        const raw = b64(doc.vkey.slice(name.length + id.length + 2) || material);
        if (raw[0] !== 1 || raw.length !== 33) {
          throw new Error("not an Ed25519 vkey");
        }
        const key = await crypto.subtle.importKey(
          "raw", raw.slice(1), { name: "Ed25519" }, false, ["verify"]);
        const keyId = new Uint8Array(id.match(/../g).map((h) => parseInt(h, 16)));
        return { name, keyId, key };
      })();
    }
    return keyPromise;
  }

  // A signed checkpoint: its text, origin, size and root, and whether the
  // service's key signed it (C2SP signed-note, tlog-checkpoint).
  function parse(note) {
    const split = note.lastIndexOf("\n\n");
    if (split < 0 || !note.endsWith("\n")) {
      throw new Error("not a signed note");
    }
    const text = note.slice(0, split + 1);
    const lines = text.slice(0, -1).split("\n");
    if (lines.length < 3 || !/^(0|[1-9][0-9]*)$/.test(lines[1])) {
      throw new Error("not a checkpoint");
    }
    const signatures = note.slice(split + 2, -1).split("\n").map((line) => {
      if (!line.startsWith(DASH)) {
        throw new Error("not a signature line");
      }
      const [name, sig] = line.slice(DASH.length).split(" ");
      return { name, sig: b64(sig) };
    });
    const root = b64(lines[2]);
    if (root.length !== 32) {
      throw new Error("a root is 32 bytes");
    }
    return { note, text, origin: lines[0], size: Number(lines[1]), root, signatures };
  }

  async function verified(note) {
    const point = parse(note);
    const service = await serviceKey();
    const mine = point.signatures.filter(
      (s) => s.name === service.name && equal(s.sig.slice(0, 4), service.keyId));
    if (!mine.length) {
      throw new Error("not signed by the service's key");
    }
    const text = new TextEncoder().encode(point.text);
    for (const s of mine) {
      if (!(await crypto.subtle.verify({ name: "Ed25519" }, service.key, s.sig.slice(4), text))) {
        throw new Error("a signature of the service's key fails");
      }
    }
    return point;
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
        if (!(fn & 1)) {
          while (!(fn & 1) && fn !== 0) {
            fn >>= 1;
            sn >>= 1;
          }
        }
      } else {
        sr = await nodeHash(sr, c);
      }
      fn >>= 1;
      sn >>= 1;
    }
    return sn === 0 && equal(fr, first) && equal(sr, second);
  }

  function status(text, state) {
    let shown = document.getElementById("receipts");
    if (!shown) {
      shown = document.createElement("p");
      shown.id = "receipts";
      const main = document.getElementById("main") || document.body;
      main.insertBefore(shown, main.firstChild);
    }
    shown.className = `receipts receipts-${state}`;
    shown.setAttribute("role", state === "failed" ? "alert" : "status");
    shown.dataset.state = state;
    shown.textContent = text;
  }

  function describe(point) {
    const root = btoa(String.fromCharCode(...point.root)).slice(0, 12);
    return `${point.size} events, root ${root}…`;
  }

  let queue = Promise.resolve();

  async function check(game, note) {
    const key = PREFIX + game;
    let now;
    try {
      now = await verified(note);
    } catch (error) {
      status(`This game's checkpoint is not signed by the service's key (${error.message}).`,
        "failed");
      return;
    }
    let kept = null;
    const stored = localStorage.getItem(key);
    if (stored !== null) {
      try {
        kept = await verified(stored);
        if (kept.origin !== now.origin) {
          throw new Error("another log's");
        }
      } catch (error) {
        localStorage.setItem(key, now.note);
        status("The checkpoint this browser kept for this game could not be read " +
          `(${error.message}): this browser's storage, not the service; it is replaced.`,
        "corrupt");
        return;
      }
    }
    if (kept !== null) {
      const [small, large] = kept.size <= now.size ? [kept, now] : [now, kept];
      let fine = small.size === large.size ? equal(small.root, large.root) : false;
      if (small.size !== large.size) {
        const response = await fetch(
          `/receipts/logs/${game}/consistency?old=${small.size}&size=${large.size}`,
          { credentials: "same-origin" });
        if (response.ok) {
          const answer = await response.json();
          const given = await verified(answer.checkpoint);
          fine = equal(given.root, large.root) && await consistent(
            small.size, large.size, small.root, large.root, answer.proof.map(b64));
        }
      }
      if (!fine) {
        localStorage.setItem(`${key}:evidence`, JSON.stringify([kept.note, now.note]));
        status("The service's log of this game contradicts what this browser saw before: " +
          `it signed ${describe(kept)} then ${describe(now)}, and no consistency proof joins ` +
          "the two. Both signed checkpoints are kept in this browser as evidence.", "failed");
        return;
      }
      if (now.size <= kept.size) {
        status(`Log checked: ${kept.size} events, consistent with what this browser saw.`, "ok");
        return;
      }
    }
    localStorage.setItem(key, now.note);
    status(`Log checked: ${now.size} events, consistent with what this browser saw` +
      (kept ? ` before (${kept.size}).` : "."), "ok");
  }

  function enqueue(game, note) {
    queue = queue.then(() => check(game, note)).catch(() => {});
    return queue;
  }

  document.addEventListener("opus:checkpoint", (event) => {
    try {
      const message = JSON.parse(event.detail);
      enqueue(message.aggregate_id, message.checkpoint);
    } catch (error) {
      // not a checkpoint message: nothing to check
    }
  });

  document.addEventListener("DOMContentLoaded", () => {
    const live = document.getElementById("live");
    if (!live || !live.dataset.game || !window.crypto || !crypto.subtle) {
      return;
    }
    const game = live.dataset.game;
    fetch(`/receipts/logs/${game}/checkpoint`, { credentials: "same-origin" })
      .then((response) => (response.ok ? response.text() : null))
      .then((note) => (note ? enqueue(game, note) : null))
      .catch(() => {});
  });
})();
