/**
 * The web chat page: one self-contained HTML document (inline CSS and JavaScript, no external
 * resources, no build step) that looks like a Telegram chat. The script talks only to /demo/api/*.
 * Besides the customer's and the operator's private chats it shows a group chat of the emulator (the
 * operators' forum): a topic bar, the messages of the chosen topic, Reply on each message, and the
 * composer writing into the topic as the operator.
 *
 * Bot text is never inserted as markup: HTML messages are parsed into an inert document and rebuilt
 * from a whitelist of Telegram's formatting tags, everything else becomes text nodes. The page is
 * served with a Content-Security-Policy that allows only its own inline script and style (by hash).
 */
import { createHash } from "node:crypto";

const STYLE = String.raw`
* { box-sizing: border-box; }
html, body { height: 100%; margin: 0; }
body {
  font: 15px/1.4 -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: #000; background: #d6e2cc;
}
.app {
  display: flex; flex-direction: column; height: 100%; max-width: 760px; margin: 0 auto;
  background: linear-gradient(160deg, #d9e6bf 0%, #b9d3a1 45%, #8fb8a0 100%);
  box-shadow: 0 0 24px rgba(0,0,0,.12); position: relative;
}
header.top {
  display: flex; align-items: center; gap: 12px; padding: 8px 14px; background: #fff;
  border-bottom: 1px solid #dfe1e5; flex-wrap: wrap;
}
.avatar {
  width: 42px; height: 42px; border-radius: 50%; flex: none; display: grid; place-items: center;
  background: linear-gradient(135deg, #72d5fd, #2a9ef1); color: #fff; font-weight: 600; font-size: 18px;
}
.title { flex: 1; min-width: 140px; }
.title .name { font-weight: 600; }
.title .status { color: #8a8a8a; font-size: 13px; }
.title .status.offline { color: #d14e4e; }
.identity { display: inline-flex; border: 1px solid #3390ec; border-radius: 8px; overflow: hidden; }
.identity button {
  border: 0; background: #fff; color: #3390ec; padding: 6px 10px; font: inherit; font-size: 13px; cursor: pointer;
}
.identity button[aria-pressed="true"] { background: #3390ec; color: #fff; }
.identity button small { display: block; font-size: 11px; opacity: .8; }
.lang { font-size: 13px; color: #707579; display: inline-flex; align-items: center; gap: 4px; }
.lang select { font: inherit; padding: 3px 4px; border-radius: 6px; border: 1px solid #c9cdd2; background: #fff; }
.banner {
  font-size: 12px; color: #4a5a44; text-align: center; padding: 4px 10px; background: rgba(255,255,255,.55);
}
main.chat { flex: 1; overflow-y: auto; padding: 10px 12px 12px; }
.messages { display: flex; flex-direction: column; gap: 6px; }
.empty {
  margin: 30% auto 0; max-width: 300px; text-align: center; padding: 14px 18px; border-radius: 14px;
  background: rgba(0,0,0,.22); color: #fff;
}
.row { display: flex; flex-direction: column; max-width: 85%; }
.row.bot { align-self: flex-start; }
.row.user { align-self: flex-end; }
.row.service { align-self: center; max-width: 90%; }
.bubble {
  position: relative; padding: 6px 10px 6px; border-radius: 14px; background: #fff;
  box-shadow: 0 1px 1px rgba(0,0,0,.12); white-space: pre-wrap; overflow-wrap: anywhere; min-width: 80px;
}
.row.bot .bubble { border-bottom-left-radius: 4px; }
.row.user .bubble { background: #effdde; border-bottom-right-radius: 4px; }
.row.flash .bubble { animation: flash 1.2s ease-out; }
@keyframes flash { 0% { box-shadow: 0 0 0 3px #3390ec; } 100% { box-shadow: 0 1px 1px rgba(0,0,0,.12); } }
.bubble::after { content: ""; display: block; clear: both; }
.meta { float: right; margin: 6px 0 -4px 10px; font-size: 11px; color: #8a9a87; white-space: nowrap; user-select: none; }
.row.bot .meta { color: #a0a4a8; }
.service .pill {
  background: rgba(0,0,0,.25); color: #fff; border-radius: 12px; padding: 3px 10px; font-size: 13px; text-align: center;
}
.media { display: block; color: #707579; font-style: italic; }
.bubble code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13.5px; color: #c23d6e; }
.bubble pre {
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; margin: 4px 0;
  padding: 6px 8px; border-radius: 6px; background: rgba(0,0,0,.05); white-space: pre-wrap;
}
.bubble pre code { color: inherit; }
.bubble blockquote { margin: 4px 0; padding: 2px 8px; border-left: 3px solid #3390ec; background: rgba(51,144,236,.08); border-radius: 4px; }
.bubble a { color: #3390ec; text-decoration: none; }
.bubble a:hover { text-decoration: underline; }
.spoiler { background: #b4b8bc; color: transparent; border-radius: 4px; cursor: pointer; }
.spoiler.revealed { background: transparent; color: inherit; cursor: auto; }
.invoice { min-width: 240px; }
.invoice .label { font-size: 12px; color: #3390ec; text-transform: uppercase; letter-spacing: .04em; }
.invoice .invoice-title { font-weight: 600; margin-top: 2px; }
.invoice .invoice-desc { color: #4d5156; margin-top: 2px; }
.invoice .amount { font-size: 20px; font-weight: 600; margin-top: 6px; }
.kb { display: flex; flex-direction: column; gap: 4px; margin-top: 4px; }
.kb-row { display: flex; gap: 4px; }
.kb button, .reply-keyboard button {
  flex: 1 1 0; min-width: 0; border: 0; border-radius: 8px; padding: 8px 10px; font: inherit; font-size: 14px;
  font-weight: 500; color: #fff; background: rgba(40, 78, 52, .42); cursor: pointer; position: relative;
  overflow: hidden; text-overflow: ellipsis; white-space: nowrap; backdrop-filter: blur(6px);
}
.kb button:hover { background: rgba(40, 78, 52, .55); }
.kb button.pay { background: #3390ec; }
.kb button.pay:hover { background: #2b7fd3; }
.kb button:disabled { opacity: .75; cursor: default; }
.kb button.url::after { content: "\2197"; position: absolute; top: 2px; right: 5px; font-size: 10px; }
.kb button.loading { color: rgba(255,255,255,.6); }
.kb button.loading::before {
  content: ""; position: absolute; top: 4px; right: 4px; width: 9px; height: 9px; border-radius: 50%;
  border: 2px solid #fff; border-right-color: transparent; animation: spin .8s linear infinite;
}
@keyframes spin { to { transform: rotate(360deg); } }
.reply-keyboard { display: flex; flex-direction: column; gap: 4px; padding: 6px 10px; background: #f1f3f4; }
.reply-keyboard .kb-row { display: flex; gap: 4px; }
.reply-keyboard button { color: #000; background: #fff; box-shadow: 0 1px 1px rgba(0,0,0,.15); }
.composer { display: flex; gap: 8px; padding: 8px 10px; background: #fff; border-top: 1px solid #dfe1e5; align-items: center; }
.composer input {
  flex: 1; border: 0; outline: 0; font: inherit; padding: 9px 12px; border-radius: 20px; background: #f1f3f4;
}
.composer button {
  border: 0; background: #3390ec; color: #fff; border-radius: 18px; padding: 8px 14px; font: inherit; cursor: pointer;
}
.composer .menu-button { background: #3390ec; }
.composer button:disabled { opacity: .5; cursor: default; }
.start {
  margin: 0; border: 0; padding: 14px; font: inherit; font-weight: 600; letter-spacing: .05em;
  color: #3390ec; background: #fff; border-top: 1px solid #dfe1e5; cursor: pointer;
}
.commands {
  position: absolute; left: 10px; bottom: 58px; background: #fff; border-radius: 12px; min-width: 260px;
  box-shadow: 0 4px 18px rgba(0,0,0,.2); padding: 6px 0; max-height: 50%; overflow-y: auto; z-index: 5;
}
.commands button {
  display: block; width: 100%; text-align: left; border: 0; background: none; padding: 7px 14px; font: inherit; cursor: pointer;
}
.commands button:hover { background: #f1f3f4; }
.commands b { color: #3390ec; font-weight: 500; margin-right: 8px; }
.commands span { color: #707579; font-size: 13px; }
.toast {
  position: absolute; left: 50%; top: 84px; transform: translateX(-50%); max-width: 80%; z-index: 6;
  background: rgba(0,0,0,.78); color: #fff; padding: 8px 14px; border-radius: 10px; font-size: 14px;
}
.alert { position: fixed; inset: 0; background: rgba(0,0,0,.35); display: grid; place-items: center; z-index: 10; }
.alert-box { background: #fff; border-radius: 12px; padding: 18px 20px 12px; max-width: 340px; box-shadow: 0 6px 24px rgba(0,0,0,.3); }
.alert-box p { margin: 0 0 12px; white-space: pre-wrap; }
.alert-box button { float: right; border: 0; background: none; color: #3390ec; font: inherit; font-weight: 600; cursor: pointer; padding: 4px 8px; }
.topics {
  display: flex; gap: 6px; padding: 6px 10px; background: #fff; border-bottom: 1px solid #dfe1e5; overflow-x: auto;
}
.topics button {
  flex: none; border: 1px solid #c9cdd2; background: #fff; border-radius: 14px; padding: 4px 10px; font: inherit;
  font-size: 13px; cursor: pointer; white-space: nowrap;
}
.topics button[aria-pressed="true"] { background: #3390ec; border-color: #3390ec; color: #fff; }
.topics button small { opacity: .7; margin-left: 4px; }
.sender { font-size: 13px; font-weight: 600; color: #3390ec; }
.quote {
  border-left: 3px solid #3390ec; padding: 0 6px; margin: 2px 0 4px; font-size: 13px; color: #4d5156;
  white-space: nowrap; overflow: hidden; text-overflow: ellipsis; max-width: 320px;
}
.reply-action {
  align-self: flex-start; border: 0; background: none; color: #2b5d3a; font: inherit; font-size: 12px;
  padding: 2px 6px; cursor: pointer;
}
.row.user .reply-action { align-self: flex-end; }
.replying {
  display: flex; align-items: center; gap: 8px; padding: 6px 12px; background: #fff; border-top: 1px solid #dfe1e5;
  font-size: 13px; color: #4d5156;
}
.replying span { flex: 1; overflow: hidden; white-space: nowrap; text-overflow: ellipsis; border-left: 3px solid #3390ec; padding-left: 6px; }
.replying button { border: 0; background: none; font: inherit; color: #707579; cursor: pointer; }
[hidden] { display: none !important; }
`;

const SCRIPT = String.raw`
(function () {
  "use strict";

  var UI = {
    en: {
      customer: "Customer", operator: "Operator (private)", group: "Operators' group", language: "Language", bot: "bot", connecting: "connecting\u2026",
      offline: "emulator not reachable \u2014 retrying\u2026", message: "Message", send: "Send", start: "START",
      menu: "Menu", edited: "edited", invoice: "Invoice", paid: "You paid", paidButton: "\u2713 Paid", refunded: "refunded", payFailed: "Payment failed: ",
      noAnswer: "The bot did not answer the button press.", empty: "Press START to talk to the shop bot.",
      banner: "Offline demo: Telegram, the reseller and payments are simulated on this computer. Nothing real is charged.",
      error: "Error: ", general: "General", reply: "Reply", replyingTo: "Replying to: ", topicCreated: "Topic created: ",
      emptyTopic: "No messages in this topic yet.", groupStatus: "group \u00b7 you write as ", cancelReply: "Cancel reply"
    },
    ru: {
      customer: "\u041f\u043e\u043a\u0443\u043f\u0430\u0442\u0435\u043b\u044c", operator: "\u041e\u043f\u0435\u0440\u0430\u0442\u043e\u0440 (\u043b\u0438\u0447\u043d\u043e)",
      group: "\u0413\u0440\u0443\u043f\u043f\u0430 \u043e\u043f\u0435\u0440\u0430\u0442\u043e\u0440\u043e\u0432",
      general: "\u041e\u0431\u0449\u0438\u0439", reply: "\u041e\u0442\u0432\u0435\u0442\u0438\u0442\u044c",
      replyingTo: "\u041e\u0442\u0432\u0435\u0442 \u043d\u0430: ", topicCreated: "\u0421\u043e\u0437\u0434\u0430\u043d\u0430 \u0442\u0435\u043c\u0430: ",
      emptyTopic: "\u0412 \u044d\u0442\u043e\u0439 \u0442\u0435\u043c\u0435 \u043f\u043e\u043a\u0430 \u043d\u0435\u0442 \u0441\u043e\u043e\u0431\u0449\u0435\u043d\u0438\u0439.",
      groupStatus: "\u0433\u0440\u0443\u043f\u043f\u0430 \u00b7 \u0432\u044b \u043f\u0438\u0448\u0435\u0442\u0435 \u043a\u0430\u043a ",
      cancelReply: "\u041e\u0442\u043c\u0435\u043d\u0438\u0442\u044c \u043e\u0442\u0432\u0435\u0442",
      language: "\u042f\u0437\u044b\u043a", bot: "\u0431\u043e\u0442", connecting: "\u0441\u043e\u0435\u0434\u0438\u043d\u0435\u043d\u0438\u0435\u2026",
      offline: "\u044d\u043c\u0443\u043b\u044f\u0442\u043e\u0440 \u043d\u0435\u0434\u043e\u0441\u0442\u0443\u043f\u0435\u043d \u2014 \u043f\u043e\u0432\u0442\u043e\u0440\u044f\u0435\u043c\u2026",
      message: "\u0421\u043e\u043e\u0431\u0449\u0435\u043d\u0438\u0435", send: "\u041e\u0442\u043f\u0440\u0430\u0432\u0438\u0442\u044c",
      start: "\u0417\u0410\u041f\u0423\u0421\u0422\u0418\u0422\u042c", menu: "\u041c\u0435\u043d\u044e",
      edited: "\u0438\u0437\u043c\u0435\u043d\u0435\u043d\u043e", invoice: "\u0421\u0447\u0451\u0442",
      paid: "\u0412\u044b \u043e\u043f\u043b\u0430\u0442\u0438\u043b\u0438", paidButton: "\u2713 \u041e\u043f\u043b\u0430\u0447\u0435\u043d\u043e",
      refunded: "\u0432\u043e\u0437\u0432\u0440\u0430\u0449\u0435\u043d\u043e",
      payFailed: "\u041e\u043f\u043b\u0430\u0442\u0430 \u043d\u0435 \u043f\u0440\u043e\u0448\u043b\u0430: ",
      noAnswer: "\u0411\u043e\u0442 \u043d\u0435 \u043e\u0442\u0432\u0435\u0442\u0438\u043b \u043d\u0430 \u043d\u0430\u0436\u0430\u0442\u0438\u0435 \u043a\u043d\u043e\u043f\u043a\u0438.",
      empty: "\u041d\u0430\u0436\u043c\u0438\u0442\u0435 \u00ab\u0417\u0410\u041f\u0423\u0421\u0422\u0418\u0422\u042c\u00bb, \u0447\u0442\u043e\u0431\u044b \u043f\u043e\u0433\u043e\u0432\u043e\u0440\u0438\u0442\u044c \u0441 \u0431\u043e\u0442\u043e\u043c \u043c\u0430\u0433\u0430\u0437\u0438\u043d\u0430.",
      banner: "\u041e\u0444\u043b\u0430\u0439\u043d-\u0434\u0435\u043c\u043e: Telegram, \u043f\u043e\u0441\u0442\u0430\u0432\u0449\u0438\u043a \u0438 \u043e\u043f\u043b\u0430\u0442\u0430 \u0438\u043c\u0438\u0442\u0438\u0440\u0443\u044e\u0442\u0441\u044f \u043d\u0430 \u044d\u0442\u043e\u043c \u043a\u043e\u043c\u043f\u044c\u044e\u0442\u0435\u0440\u0435. \u041d\u0438\u0447\u0435\u0433\u043e \u043d\u0430\u0441\u0442\u043e\u044f\u0449\u0435\u0433\u043e \u043d\u0435 \u0441\u043f\u0438\u0441\u044b\u0432\u0430\u0435\u0442\u0441\u044f.",
      error: "\u041e\u0448\u0438\u0431\u043a\u0430: "
    }
  };
  var DEFAULT_IDENTITIES = [
    { role: "customer", id: 1001, username: "demo_customer", firstName: "Anna" },
    { role: "operator", id: 9001, username: "demo_operator", firstName: "Oleg" }
  ];

  var state = {
    identities: DEFAULT_IDENTITIES,
    role: "customer",
    langs: {},
    chat: null,
    source: null,
    pollTimer: null,
    rendered: new Map(),
    toastTimer: null,
    generation: 0,
    /** The group chat the page can show (the first of /demo/api/config's groups), its snapshot, the topic shown. */
    group: null,
    groupData: null,
    topic: 0,
    /** The message the next one replies to (in the group): { id, text }. */
    replyTo: null
  };

  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function store(key, value) { try { localStorage.setItem(key, value); } catch (e) { /* private mode */ } }
  function load(key) { try { return localStorage.getItem(key); } catch (e) { return null; } }

  /** Who the page acts as; in the operators' group, the operator. */
  function identity() {
    var role = state.role === "group" ? "operator" : state.role;
    for (var i = 0; i < state.identities.length; i++) if (state.identities[i].role === role) return state.identities[i];
    return state.identities[0];
  }
  function inGroup() { return state.role === "group" && !!state.group; }
  function lang() { return state.langs[state.role] || "en"; }
  function t(key) { var d = UI[lang()] || UI.en; return d[key] !== undefined ? d[key] : UI.en[key]; }

  // ---- talking to the emulator ----

  function post(path, body) {
    body.user = identity().id;
    body.lang = lang();
    if (inGroup()) body.group = state.group.id;
    return fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
      .then(function (r) {
        return r.json().catch(function () { return {}; }).then(function (j) {
          if (!r.ok) throw new Error(j.error || ("HTTP " + r.status));
          return j;
        });
      });
  }

  function connect() {
    var generation = ++state.generation;
    if (state.source) { state.source.close(); state.source = null; }
    if (state.pollTimer) { clearTimeout(state.pollTimer); state.pollTimer = null; }
    setStatus("connecting");
    var id = identity().id;
    if (typeof EventSource === "undefined") { poll(generation, id); return; }
    var source = new EventSource(inGroup()
      ? "/demo/api/events?group=" + encodeURIComponent(state.group.id)
      : "/demo/api/events?user=" + encodeURIComponent(id));
    state.source = source;
    source.addEventListener("chat", function (e) {
      if (generation !== state.generation) return;
      setStatus("online");
      render(JSON.parse(e.data));
    });
    source.onopen = function () { if (generation === state.generation) setStatus("online"); };
    source.onerror = function () { if (generation === state.generation) setStatus("offline"); };
  }

  /** Fallback for browsers without EventSource: short polling of the chat. */
  function poll(generation, id) {
    fetch(inGroup() ? "/demo/api/group?id=" + encodeURIComponent(state.group.id) : "/demo/api/chat?user=" + encodeURIComponent(id))
      .then(function (r) { return r.json(); })
      .then(function (chat) { if (generation === state.generation) { setStatus("online"); render(chat); } })
      .catch(function () { if (generation === state.generation) setStatus("offline"); })
      .then(function () { if (generation === state.generation) state.pollTimer = setTimeout(function () { poll(generation, id); }, 1500); });
  }

  function setStatus(kind) {
    var s = $("status");
    s.dataset.state = kind;
    s.className = "status" + (kind === "offline" ? " offline" : "");
    var online = inGroup() ? t("groupStatus") + "@" + identity().username : t("bot");
    s.textContent = kind === "online" ? online : kind === "offline" ? t("offline") : t("connecting");
  }

  // ---- formatting: Telegram HTML through a whitelist, or entities ----

  var SIMPLE = { b: "b", strong: "b", i: "i", em: "i", u: "u", ins: "u", s: "s", strike: "s", del: "s", code: "code", pre: "pre", blockquote: "blockquote" };

  function safeHref(href) {
    return /^(https?:|tg:|mailto:)/i.test(href || "") ? href : null;
  }
  function spoiler(node) {
    node.classList.add("spoiler");
    node.addEventListener("click", function () { node.classList.add("revealed"); });
    return node;
  }

  /** Text with /commands made clickable, as Telegram does in bot messages. */
  function appendText(text, into, commands) {
    var re = /(^|[\s(])(\/[A-Za-z0-9_]{1,32})(?=$|[\s.,!?;:)])/g;
    var last = 0, match;
    while (commands && (match = re.exec(text)) !== null) {
      var start = match.index + match[1].length;
      if (start > last) into.appendChild(document.createTextNode(text.slice(last, start)));
      var command = match[2];
      var link = el("a", "command", command);
      link.href = "#";
      link.addEventListener("click", function (e) { e.preventDefault(); sendText(this.textContent); });
      into.appendChild(link);
      last = start + command.length;
    }
    if (last < text.length) into.appendChild(document.createTextNode(text.slice(last)));
  }

  function appendSanitized(from, into, commands) {
    var nodes = from.childNodes;
    for (var i = 0; i < nodes.length; i++) {
      var node = nodes[i];
      if (node.nodeType === 3) { appendText(node.nodeValue, into, commands); continue; }
      if (node.nodeType !== 1) continue;
      var tag = node.nodeName.toLowerCase();
      var out = null;
      if (SIMPLE[tag]) out = document.createElement(SIMPLE[tag]);
      else if (tag === "a") {
        out = document.createElement("a");
        var href = safeHref(node.getAttribute("href"));
        if (href) { out.href = href; out.target = "_blank"; out.rel = "noopener noreferrer"; }
      } else if (tag === "tg-spoiler" || (tag === "span" && node.getAttribute("class") === "tg-spoiler")) {
        out = spoiler(document.createElement("span"));
      }
      var inner = commands && tag !== "a" && tag !== "code" && tag !== "pre";
      if (out) { appendSanitized(node, out, inner); into.appendChild(out); }
      else appendSanitized(node, into, commands);
    }
  }

  function renderHtml(html, into) {
    var doc = new DOMParser().parseFromString("<!doctype html><body>" + html, "text/html");
    appendSanitized(doc.body, into, true);
  }

  var ENTITY_TAGS = { bold: "b", italic: "i", underline: "u", strikethrough: "s", code: "code", pre: "pre", blockquote: "blockquote", expandable_blockquote: "blockquote" };

  /** Plain text with entities (UTF-16 offsets): split into runs, wrap each run in its styles. */
  function renderEntities(text, entities, into) {
    var cuts = [0, text.length];
    entities.forEach(function (e) { cuts.push(e.offset, e.offset + e.length); });
    cuts = cuts.filter(function (c, i, a) { return c >= 0 && c <= text.length && a.indexOf(c) === i; }).sort(function (a, b) { return a - b; });
    for (var i = 0; i + 1 < cuts.length; i++) {
      var from = cuts[i], to = cuts[i + 1];
      var node = document.createTextNode(text.slice(from, to));
      entities.forEach(function (e) {
        if (e.offset > from || e.offset + e.length < to) return;
        var wrap = null;
        if (ENTITY_TAGS[e.type]) wrap = document.createElement(ENTITY_TAGS[e.type]);
        else if (e.type === "spoiler") wrap = spoiler(document.createElement("span"));
        else if (e.type === "text_link" || e.type === "url") {
          wrap = document.createElement("a");
          var href = safeHref(e.type === "url" ? text.slice(e.offset, e.offset + e.length) : e.url);
          if (href) { wrap.href = href; wrap.target = "_blank"; wrap.rel = "noopener noreferrer"; }
        }
        if (wrap) { wrap.appendChild(node); node = wrap; }
      });
      into.appendChild(node);
    }
  }

  function amount(currency, total) {
    if (currency === "XTR") return "\u2b50\ufe0f " + total;
    return (total / 100).toFixed(2) + " " + currency;
  }
  function clock(date) {
    var d = new Date(date * 1000);
    return ("0" + d.getHours()).slice(-2) + ":" + ("0" + d.getMinutes()).slice(-2);
  }

  // ---- messages ----

  function renderMessage(m) {
    var row = el("div", "row " + (m.payment ? "service" : m.from));
    row.dataset.messageId = String(m.id);
    row.dataset.from = m.from;
    if (m.payment) {
      var note = m.payment.refunded ? " \u00b7 " + t("refunded") : "";
      row.appendChild(el("div", "pill", t("paid") + " " + amount(m.payment.currency, m.payment.totalAmount) + note));
      return row;
    }
    if (m.topicCreated !== undefined) {
      row.className = "row service";
      row.appendChild(el("div", "pill", t("topicCreated") + m.topicCreated));
      return row;
    }
    var bubble = el("div", "bubble" + (m.invoice ? " invoice" : ""));
    var body = el("div", "text");
    if (m.sender) bubble.appendChild(el("div", "sender", m.sender));
    if (m.replyTo !== undefined) bubble.appendChild(el("div", "quote", snippet(m.replyTo)));
    if (m.invoice) {
      bubble.appendChild(el("div", "label", t("invoice")));
      bubble.appendChild(el("div", "invoice-title", m.invoice.title));
      bubble.appendChild(el("div", "invoice-desc", m.invoice.description));
      bubble.appendChild(el("div", "amount", amount(m.invoice.currency, m.invoice.totalAmount)));
    } else {
      if (m.media) body.appendChild(el("span", "media", "[" + m.media + "]"));
      if (m.html !== undefined) renderHtml(m.html, body);
      else if (m.text !== undefined && m.entities) renderEntities(m.text, m.entities, body);
      else if (m.text !== undefined) appendText(m.text, body, m.from === "bot");
      bubble.appendChild(body);
    }
    var meta = el("span", "meta", (m.edited ? t("edited") + " " : "") + clock(m.date));
    (m.invoice ? bubble : body).appendChild(meta);
    row.appendChild(bubble);
    if (m.keyboard) row.appendChild(renderKeyboard(m));
    if (inGroup()) {
      var reply = el("button", "reply-action", "\u21a9 " + t("reply"));
      reply.type = "button";
      reply.addEventListener("click", function () { setReply(m); });
      row.appendChild(reply);
    }
    return row;
  }

  /** The first line of a message of the chat shown, for a reply's quote. */
  function snippet(id) {
    var all = inGroup() && state.groupData ? state.groupData.messages : state.chat ? state.chat.messages : [];
    for (var i = 0; i < all.length; i++) {
      if (all[i].id !== id) continue;
      var text = all[i].text || (all[i].topicCreated !== undefined ? all[i].topicCreated : "") || (all[i].media ? "[" + all[i].media + "]" : "");
      return (all[i].sender ? all[i].sender + ": " : "") + text.split("\n")[0];
    }
    return "#" + id;
  }

  function setReply(m) {
    state.replyTo = m ? { id: m.id } : null;
    $("replying").hidden = !m;
    if (m) {
      $("replying-text").textContent = t("replyingTo") + snippet(m.id);
      $("input").focus();
    }
  }

  function renderKeyboard(m) {
    var kb = el("div", "kb");
    m.keyboard.forEach(function (buttons) {
      var row = el("div", "kb-row");
      buttons.forEach(function (b) {
        var paid = b.type === "pay" && m.invoice && m.invoice.paid;
        var button = el("button", b.type, paid ? t("paidButton") : b.text);
        button.type = "button";
        button.disabled = !!paid;
        button.title = b.text;
        button.addEventListener("click", function () { pressButton(m, b, button); });
        row.appendChild(button);
      });
      kb.appendChild(row);
    });
    return kb;
  }

  function pressButton(m, b, button) {
    if (button.classList.contains("loading")) return;
    if (b.type === "url") {
      var href = safeHref(b.url);
      if (href && /^https?:/i.test(href)) window.open(href, "_blank", "noopener,noreferrer");
      return;
    }
    if (b.type !== "callback" && b.type !== "pay") return;
    button.classList.add("loading");
    var done = function () { button.classList.remove("loading"); };
    if (b.type === "pay") {
      post("/demo/api/pay", { messageId: m.id }).then(function (r) {
        if (!r.ok) showAlert(t("payFailed") + (r.error || ""));
      }).catch(showError).then(done);
      return;
    }
    post("/demo/api/press", { messageId: m.id, data: b.data }).then(function (r) {
      if (!r.answer) toast(t("noAnswer"));
      else if (r.answer.text && r.answer.show_alert) showAlert(r.answer.text);
      else if (r.answer.text) toast(r.answer.text);
    }).catch(showError).then(done);
  }

  /** A snapshot from the emulator: a user's chat, or the group's (shown one topic at a time). */
  function render(data) {
    if (!data.group) { renderChat(data); return; }
    state.groupData = data;
    var topics = [{ threadId: 0, name: t("general") }].concat(data.topics);
    if (!topics.some(function (tp) { return tp.threadId === state.topic; })) { state.topic = 0; setReply(null); }
    renderTopics(topics, data.messages);
    renderChat({
      bot: data.bot,
      group: data.group,
      commands: [],
      replyKeyboard: null,
      messages: data.messages.filter(function (m) { return (m.threadId || 0) === state.topic; })
    });
  }

  function renderTopics(topics, messages) {
    var bar = $("topics");
    bar.textContent = "";
    bar.hidden = !state.groupData.group.isForum;
    topics.forEach(function (tp) {
      var count = messages.filter(function (m) { return (m.threadId || 0) === tp.threadId && m.topicCreated === undefined; }).length;
      var b = el("button", "", tp.name);
      b.type = "button";
      b.dataset.threadId = String(tp.threadId);
      b.appendChild(el("small", "", String(count)));
      b.setAttribute("aria-pressed", String(tp.threadId === state.topic));
      b.addEventListener("click", function () { showTopic(tp.threadId); });
      bar.appendChild(b);
    });
  }

  function showTopic(threadId) {
    if (state.topic === threadId) return;
    state.topic = threadId;
    setReply(null);
    if (state.groupData) render(state.groupData);
    var scroller = $("chat");
    scroller.scrollTop = scroller.scrollHeight;
  }

  function renderChat(chat) {
    var list = $("messages");
    var scroller = $("chat");
    var nearBottom = scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 60;
    var previousCount = state.chat ? state.chat.messages.length : 0;
    state.chat = chat;
    var name = chat.group ? chat.group.title : chat.bot.firstName;
    $("bot-name").textContent = name;
    $("bot-avatar").textContent = (name || "B").charAt(0).toUpperCase();
    $("bot-username").textContent = "@" + chat.bot.username;

    var seen = new Set();
    var prev = null;
    chat.messages.forEach(function (m) {
      var key = String(m.id);
      seen.add(key);
      var sig = JSON.stringify(m);
      var entry = state.rendered.get(key);
      if (!entry || entry.sig !== sig) {
        var node = renderMessage(m);
        if (entry) {
          entry.node.replaceWith(node);
          node.classList.add("flash");
        }
        entry = { node: node, sig: sig };
        state.rendered.set(key, entry);
      }
      var expected = prev ? prev.nextSibling : list.firstChild;
      if (expected !== entry.node) list.insertBefore(entry.node, expected);
      prev = entry.node;
    });
    state.rendered.forEach(function (entry, key) {
      if (!seen.has(key)) { entry.node.remove(); state.rendered.delete(key); }
    });

    var empty = chat.messages.length === 0;
    $("empty").hidden = !empty;
    $("empty").textContent = chat.group ? t("emptyTopic") : t("empty");
    $("start").hidden = !empty || !!chat.group;
    $("composer").hidden = empty && !chat.group;
    renderReplyKeyboard(chat.replyKeyboard);
    $("menu-button").hidden = chat.commands.length === 0;
    if (!$("commands").hidden) renderCommands();
    if (nearBottom || chat.messages.length > previousCount) scroller.scrollTop = scroller.scrollHeight;
  }

  function renderReplyKeyboard(rows) {
    var box = $("reply-keyboard");
    box.textContent = "";
    box.hidden = !rows || rows.length === 0;
    if (box.hidden) return;
    rows.forEach(function (texts) {
      var row = el("div", "kb-row");
      texts.forEach(function (text) {
        var b = el("button", "", text);
        b.type = "button";
        b.addEventListener("click", function () { sendText(text); });
        row.appendChild(b);
      });
      box.appendChild(row);
    });
  }

  function renderCommands() {
    var box = $("commands");
    box.textContent = "";
    (state.chat ? state.chat.commands : []).forEach(function (c) {
      var b = el("button");
      b.type = "button";
      b.appendChild(el("b", "", "/" + c.command));
      b.appendChild(el("span", "", c.description));
      b.addEventListener("click", function () { box.hidden = true; sendText("/" + c.command); });
      box.appendChild(b);
    });
  }

  // ---- composer, identity, language ----

  function sendText(text) {
    if (!text || !text.trim()) return Promise.resolve();
    var body = { text: text };
    if (inGroup()) {
      if (state.topic) body.threadId = state.topic;
      if (state.replyTo) body.replyTo = state.replyTo.id;
    }
    return post("/demo/api/send", body).then(function () { if (inGroup()) setReply(null); }).catch(showError);
  }

  function toast(text) {
    var box = $("toast");
    box.textContent = text;
    box.hidden = false;
    clearTimeout(state.toastTimer);
    state.toastTimer = setTimeout(function () { box.hidden = true; }, 2500);
  }
  function showAlert(text) {
    $("alert-text").textContent = text;
    $("alert").hidden = false;
    $("alert-ok").focus();
  }
  function showError(error) { toast(t("error") + (error && error.message ? error.message : String(error))); }

  function applyLabels() {
    document.documentElement.lang = lang();
    state.identities.forEach(function (id) {
      var b = $("as-" + id.role);
      if (!b) return;
      b.textContent = "";
      b.appendChild(document.createTextNode(t(id.role)));
      b.appendChild(el("small", "", "@" + id.username));
      b.setAttribute("aria-pressed", String(id.role === state.role));
    });
    var g = $("as-group");
    g.hidden = !state.group;
    g.textContent = "";
    g.appendChild(document.createTextNode(t("group")));
    if (state.group) g.appendChild(el("small", "", state.group.title));
    g.setAttribute("aria-pressed", String(state.role === "group"));
    $("replying-cancel").title = t("cancelReply");
    $("replying-cancel").setAttribute("aria-label", t("cancelReply"));
    $("lang-label").textContent = t("language");
    $("lang").value = lang();
    $("input").placeholder = t("message");
    $("send").textContent = t("send");
    $("start").textContent = t("start");
    $("menu-button").textContent = "\u2630 " + t("menu");
    $("empty").textContent = inGroup() ? t("emptyTopic") : t("empty");
    $("banner").textContent = t("banner");
    var status = $("status");
    setStatus(status.dataset.state || "connecting");
  }

  function switchTo(role) {
    if (role !== "customer" && role !== "operator" && !(role === "group" && state.group)) return;
    state.role = role;
    store("webchat.role", role);
    state.chat = null;
    state.groupData = null;
    setReply(null);
    $("topics").hidden = true;
    state.rendered.forEach(function (entry) { entry.node.remove(); });
    state.rendered.clear();
    $("commands").hidden = true;
    applyLabels();
    connect();
  }

  function init() {
    var params = new URLSearchParams(location.search);
    var browserLang = /^ru\b/i.test(navigator.language || "") ? "ru" : "en";
    ["customer", "operator", "group"].forEach(function (role) {
      var saved = params.get("lang") || load("webchat.lang." + role);
      state.langs[role] = saved === "ru" || saved === "en" ? saved : browserLang;
    });
    var role = params.get("as") || load("webchat.role");
    state.role = role === "operator" || role === "group" ? role : "customer";

    $("as-customer").addEventListener("click", function () { switchTo("customer"); });
    $("as-operator").addEventListener("click", function () { switchTo("operator"); });
    $("as-group").addEventListener("click", function () { switchTo("group"); });
    $("replying-cancel").addEventListener("click", function () { setReply(null); });
    $("lang").addEventListener("change", function () {
      state.langs[state.role] = $("lang").value;
      store("webchat.lang." + state.role, $("lang").value);
      applyLabels();
    });
    $("composer").addEventListener("submit", function (e) {
      e.preventDefault();
      var input = $("input");
      var text = input.value;
      if (!text.trim()) return;
      input.value = "";
      sendText(text);
    });
    $("start").addEventListener("click", function () { sendText("/start"); });
    $("menu-button").addEventListener("click", function () {
      var box = $("commands");
      box.hidden = !box.hidden;
      if (!box.hidden) renderCommands();
    });
    $("alert-ok").addEventListener("click", function () { $("alert").hidden = true; });
    document.addEventListener("click", function (e) {
      var box = $("commands");
      if (!box.hidden && !box.contains(e.target) && e.target !== $("menu-button")) box.hidden = true;
    });
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape") { $("alert").hidden = true; $("commands").hidden = true; setReply(null); }
    });

    applyLabels();
    fetch("/demo/api/config").then(function (r) { return r.json(); }).then(function (config) {
      if (config && Array.isArray(config.identities) && config.identities.length) state.identities = config.identities;
      if (config && Array.isArray(config.groups) && config.groups.length) state.group = config.groups[0];
      if (state.role === "group" && !state.group) state.role = "customer";
      applyLabels();
    }).catch(function () { /* keep the defaults */ }).then(connect);
  }

  init();
})();
`;

const BODY = `
<div class="app">
  <header class="top">
    <div class="avatar" id="bot-avatar" aria-hidden="true">S</div>
    <div class="title">
      <div class="name"><span id="bot-name">Shop bot</span></div>
      <div class="status" id="status" data-state="connecting">connecting…</div>
      <div class="status" id="bot-username"></div>
    </div>
    <div class="identity" role="group" aria-label="Identity">
      <button type="button" id="as-customer" data-identity="customer" aria-pressed="true">Customer</button>
      <button type="button" id="as-operator" data-identity="operator" aria-pressed="false">Operator</button>
      <button type="button" id="as-group" data-identity="group" aria-pressed="false" hidden>Operators' group</button>
    </div>
    <label class="lang"><span id="lang-label">Language</span>
      <select id="lang"><option value="ru">RU</option><option value="en">EN</option></select>
    </label>
  </header>
  <div class="banner" id="banner"></div>
  <nav class="topics" id="topics" aria-label="Topics" hidden></nav>
  <main class="chat" id="chat">
    <div class="empty" id="empty" hidden></div>
    <div class="messages" id="messages" aria-live="polite"></div>
  </main>
  <div class="toast" id="toast" role="status" hidden></div>
  <div class="commands" id="commands" hidden></div>
  <div class="reply-keyboard" id="reply-keyboard" hidden></div>
  <div class="replying" id="replying" hidden><span id="replying-text"></span><button type="button" id="replying-cancel">✕</button></div>
  <form class="composer" id="composer" autocomplete="off">
    <button type="button" class="menu-button" id="menu-button" hidden>Menu</button>
    <input id="input" name="text" maxlength="4096" placeholder="Message" aria-label="Message">
    <button type="submit" id="send">Send</button>
  </form>
  <button type="button" class="start" id="start" hidden>START</button>
</div>
<div class="alert" id="alert" hidden role="alertdialog"><div class="alert-box"><p id="alert-text"></p><button type="button" id="alert-ok">OK</button></div></div>
`;

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

let cached: { html: string; csp: string } | undefined;

/** The page and the Content-Security-Policy that allows exactly its inline style and script. */
export function webChatPage(): { html: string; csp: string } {
  cached ??= {
    html: `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Shop bot — offline demo</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>${BODY}<script>${SCRIPT}</script>
</body>
</html>
`,
    csp: [
      "default-src 'none'",
      `script-src ${sha256(SCRIPT)}`,
      `style-src ${sha256(STYLE)}`,
      "connect-src 'self'",
      "img-src data:",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join("; "),
  };
  return cached;
}
