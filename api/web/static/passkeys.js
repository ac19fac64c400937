// Opus web client: passkeys (WebAuthn) on the account pages, and the
// account key's copy button. No library: the server (api/web/account_pages.py,
// py_webauthn) makes the options and checks the answers; this script only
// carries them between it and navigator.credentials, as JSON with their
// binary fields in base64url. Its posts carry the page's CSRF token in the
// X-CSRF-Token header. Without it (or without WebAuthn) the pages' forms
// still sign up and sign in with the account key.
"use strict";

(function () {
  function csrf() {
    const meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  }

  // ---- base64url <-> bytes --------------------------------------------------------

  function toBytes(text) {
    const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
    const padded = base64 + "===".slice((base64.length + 3) % 4);
    const raw = atob(padded);
    const bytes = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i += 1) {
      bytes[i] = raw.charCodeAt(i);
    }
    return bytes.buffer;
  }

  function toText(buffer) {
    const bytes = new Uint8Array(buffer);
    let raw = "";
    for (let i = 0; i < bytes.length; i += 1) {
      raw += String.fromCharCode(bytes[i]);
    }
    return btoa(raw).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  // ---- the options the server sends, the credentials it takes -----------------------

  function creationOptions(json) {
    const options = Object.assign({}, json);
    options.challenge = toBytes(json.challenge);
    options.user = Object.assign({}, json.user, { id: toBytes(json.user.id) });
    options.excludeCredentials = (json.excludeCredentials || []).map(function (c) {
      return Object.assign({}, c, { id: toBytes(c.id) });
    });
    return options;
  }

  function requestOptions(json) {
    const options = Object.assign({}, json);
    options.challenge = toBytes(json.challenge);
    options.allowCredentials = (json.allowCredentials || []).map(function (c) {
      return Object.assign({}, c, { id: toBytes(c.id) });
    });
    return options;
  }

  function registrationJSON(credential) {
    const response = credential.response;
    return {
      id: credential.id,
      rawId: toText(credential.rawId),
      type: credential.type,
      authenticatorAttachment: credential.authenticatorAttachment || null,
      response: {
        clientDataJSON: toText(response.clientDataJSON),
        attestationObject: toText(response.attestationObject),
        transports: response.getTransports ? response.getTransports() : [],
      },
      clientExtensionResults: credential.getClientExtensionResults(),
    };
  }

  function assertionJSON(credential) {
    const response = credential.response;
    return {
      id: credential.id,
      rawId: toText(credential.rawId),
      type: credential.type,
      authenticatorAttachment: credential.authenticatorAttachment || null,
      response: {
        clientDataJSON: toText(response.clientDataJSON),
        authenticatorData: toText(response.authenticatorData),
        signature: toText(response.signature),
        userHandle: response.userHandle ? toText(response.userHandle) : null,
      },
      clientExtensionResults: credential.getClientExtensionResults(),
    };
  }

  // ---- talking to the server -----------------------------------------------------------

  async function post(url, body) {
    const response = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json",
        "X-CSRF-Token": csrf(),
      },
      body: JSON.stringify(body),
    });
    let data = null;
    try {
      data = await response.json();
    } catch (e) {
      data = null;
    }
    if (!response.ok) {
      // the service's words; never the browser's status text
      const fallback = words("server").replace("{status}", String(response.status));
      const error = new Error((data && typeof data.message === "string" && data.message) || fallback);
      error.server = true;
      throw error;
    }
    return data;
  }

  // the page's words (account_passkey_status.html's data-*), in its language
  function words(kind) {
    const status = document.getElementById("passkey-status");
    return (status && status.dataset[kind]) || "";
  }

  // a browser's refusal (a DOMException) by its name, in the page's words:
  // its own message is the browser's text, never shown
  const BROWSER_REFUSALS = {
    InvalidStateError: "exists",
    SecurityError: "insecure",
    NotSupportedError: "unsupported",
  };

  function browserWords(error) {
    const kind = BROWSER_REFUSALS[error && error.name] || "device";
    return words(kind);
  }

  function say(kind, message) {
    const status = document.getElementById("passkey-status");
    const notice = document.getElementById("notice");
    if (!status) {
      return;
    }
    let words = status.dataset[kind] || "";
    if (kind === "failed") {
      words = words.replace("{message}", message || "");
      if (notice) {
        notice.textContent = words;
        status.textContent = "";
        return;
      }
    } else if (notice) {
      notice.textContent = "";
    }
    status.textContent = words;
  }

  // ---- the three ceremonies ----------------------------------------------------------------

  async function signUp(holder) {
    const field = document.getElementById("signup-name");
    if (!field.reportValidity()) {
      return;
    }
    const options = await post(holder.dataset.options, { name: field.value });
    const credential = await navigator.credentials.create({ publicKey: creationOptions(options) });
    return post(holder.dataset.finish, { credential: registrationJSON(credential) });
  }

  async function addPasskey(holder) {
    const options = await post(holder.dataset.options, {});
    const credential = await navigator.credentials.create({ publicKey: creationOptions(options) });
    return post(holder.dataset.finish, { credential: registrationJSON(credential) });
  }

  async function signIn(holder) {
    const options = await post(holder.dataset.options, {});
    const credential = await navigator.credentials.get({ publicKey: requestOptions(options) });
    return post(holder.dataset.finish, {
      credential: assertionJSON(credential),
      next: holder.dataset.next || "/",
    });
  }

  const CEREMONIES = { signup: signUp, signin: signIn, add: addPasskey };

  async function run(button) {
    const holder = button.closest("[data-passkey-form]");
    const ceremony = CEREMONIES[button.dataset.passkey];
    if (!holder || !ceremony) {
      return;
    }
    button.disabled = true;
    say("working");
    try {
      const answer = await ceremony(holder);
      if (answer && answer.next) {
        say("done");
        window.location.assign(answer.next);
      } else {
        say("idle"); // nothing asked of the authenticator (a name missing)
      }
    } catch (error) {
      const name = error && error.name;
      const server = error && error.server;
      if (!server && (name === "NotAllowedError" || name === "AbortError")) {
        say("cancelled");
      } else {
        say("failed", server ? error.message : browserWords(error));
      }
    } finally {
      button.disabled = false;
    }
  }

  function passkeysUsable() {
    return (
      window.isSecureContext &&
      typeof window.PublicKeyCredential === "function" &&
      !!navigator.credentials
    );
  }

  // ---- the account key's copy button ----------------------------------------------------

  function wireCopy(button) {
    const field = document.getElementById(button.dataset.copy);
    const status = document.getElementById("copy-status");
    if (!field || !navigator.clipboard) {
      return;
    }
    button.hidden = false;
    button.addEventListener("click", async function () {
      field.select();
      try {
        await navigator.clipboard.writeText(field.value);
        if (status) {
          status.textContent = button.dataset.copied || "";
        }
      } catch (e) {
        // the field is selected: the person copies it by hand
      }
    });
  }

  function start() {
    if (passkeysUsable()) {
      for (const button of document.querySelectorAll("button[data-passkey]")) {
        button.hidden = false;
        button.addEventListener("click", function () {
          run(button);
        });
      }
      for (const missing of document.querySelectorAll("[data-passkey-missing]")) {
        missing.hidden = true;
      }
    }
    for (const button of document.querySelectorAll("button[data-copy]")) {
      wireCopy(button);
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
