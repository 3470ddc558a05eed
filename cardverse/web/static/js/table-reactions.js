// Quick reactions: the fixed set of the server (docs/protocol.md, Reactions), sent by a seated
// person, shown a moment beside the sender's seat (or beside "You"), written in "What
// happened" and announced; each person may mute anyone (kept in this browser, per table).
import { t } from "./i18n.js";
import { $, el } from "./table-dom.js";
import { announce, reactionWords } from "./table-narration.js";
import { S, config, dispatch, seatName, seats, tableId } from "./table-state.js";

export const BUBBLE_MS = 4000;
const POPOVERS = ".reaction-picker, .reaction-mutes"; // the picker and the mute lists
const MUTE_KEY = `cardverse.muted.${tableId}`;
const bubbles = new Map(); // seat -> {reaction, until}
let muted = readMuted();
let bubbleTimer = null;

function readMuted() {
  try {
    return new Set(JSON.parse(localStorage.getItem(MUTE_KEY) || "[]"));
  } catch {
    return new Set();
  }
}

function saveMuted() {
  try {
    localStorage.setItem(MUTE_KEY, JSON.stringify([...muted]));
  } catch {
    // no storage: muting lasts for this page
  }
}

function reaction(key) {
  return config.reactions.find((r) => r.key === key) || { key, emoji: "", label: key };
}

// A reaction heard (`io`: {send, sendRaw, render}): shown and logged unless its sender is muted.
export function onReaction(message, io) {
  const shown = !(muted.has(message.seat) && message.seat !== S.seat);
  dispatch({ type: "reaction", seat: message.seat, reaction: message.reaction, shown });
  if (!shown) return;
  bubbles.set(message.seat, { reaction: message.reaction, until: performance.now() + BUBBLE_MS });
  const words = reactionWords(message.seat, message.reaction);
  if (message.seat !== S.seat) announce(words);
  else $("reaction-note").textContent = "";
  io.render();
}

function send(key, io) {
  if (S.seat === null) return;
  io.sendRaw({ type: "react", reaction: key });
}

// A refused reaction (too many): said beside the picker and announced, gone with the next one.
export function showReactionNote(text) {
  $("reaction-note").textContent = text;
  announce(text, true);
}

function bubble(seat) {
  const shown = bubbles.get(seat);
  if (!shown) return null;
  const data = reaction(shown.reaction);
  return el(
    "span",
    {
      class: `reaction-bubble${data.emoji ? " is-emoji" : ""}`,
      "aria-hidden": "true",
      "data-reaction": data.key,
      "data-seat": String(seat),
    },
    data.emoji || data.label,
  );
}

const GAP = 4; // px between a bubble and its seat

function overlaps(a, b) {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

// Where a bubble goes in the board's reaction layer: beside its seat's chip (below it, else
// above, right or left), on no chip and inside the board; else just below the lowest chips (on
// a phone, the top of the felt), so that it never covers a name, a card count or the hand.
function placeBubble(node, chip, layer, chips) {
  const box = layer.getBoundingClientRect();
  const seat = chip.getBoundingClientRect();
  const w = node.offsetWidth;
  const h = node.offsetHeight;
  const middleX = (seat.left + seat.right) / 2 - w / 2;
  const middleY = (seat.top + seat.bottom) / 2 - h / 2;
  const lowest = Math.max(...chips.map((c) => c.bottom));
  const candidates = [
    [middleX, seat.bottom + GAP],
    [middleX, seat.top - GAP - h],
    [seat.right + GAP, middleY],
    [seat.left - GAP - w, middleY],
    [middleX, lowest + GAP],
  ];
  const clampX = (x) => Math.min(Math.max(x, box.left), Math.max(box.left, box.right - w));
  const rect = ([x, y]) => ({ left: clampX(x), top: y, right: clampX(x) + w, bottom: y + h });
  const fits = (r) => r.top >= box.top && r.bottom <= box.bottom && !chips.some((c) => overlaps(r, c));
  const chosen = candidates.map(rect).find(fits) || rect(candidates[candidates.length - 1]);
  // (set through the CSS object model, which a content security policy allows)
  node.style.setProperty("left", `${Math.round(chosen.left - box.left)}px`);
  node.style.setProperty("top", `${Math.round(chosen.top - box.top)}px`);
}

// The bubbles beside the seats (drawn again after every render, gone after BUBBLE_MS): the
// others' in the board's own layer, outside their chips (which clip what overflows them),
// mine in my line beside the hand.
export function renderReactions(io) {
  const now = performance.now();
  for (const [seat, shown] of bubbles) if (shown.until <= now) bubbles.delete(seat);
  for (const old of document.querySelectorAll(".reaction-bubble")) old.remove();
  const layer = $("reaction-layer");
  const chips = [...document.querySelectorAll("#players .player")];
  const chipRects = chips.map((chip) => chip.getBoundingClientRect());
  for (const seat of bubbles.keys()) {
    const node = bubble(seat);
    if (seat === S.seat) {
      const mine = document.querySelector(".me-bar");
      if (mine) mine.append(node);
      continue;
    }
    const chip = chips.find((c) => c.dataset.seat === String(seat));
    if (!chip || !layer || layer.offsetParent === null) continue;
    layer.append(node);
    placeBubble(node, chip, layer, chipRects);
  }
  if (bubbleTimer === null && bubbles.size) {
    bubbleTimer = setTimeout(() => {
      bubbleTimer = null;
      renderReactions(io);
    }, 500);
  }
  $("reaction-bar").hidden = S.seat === null;
  renderMutes(io);
  // the hand's lines may have moved under an open picker (a note, a banner): placed again
  for (const details of document.querySelectorAll(POPOVERS)) if (details.open) placePopover(details);
}

function renderMutes(io) {
  const others = seats().filter((s) => s.kind === "human" && s.seat !== S.seat);
  const wanted = others.map((s) => `${s.seat}:${s.name}:${muted.has(s.seat)}`).join("|");
  for (const box of document.querySelectorAll("[data-mutes]")) box.hidden = others.length === 0;
  for (const list of document.querySelectorAll(".mute-list")) {
    if (list.dataset.wanted === wanted) continue;
    list.dataset.wanted = wanted;
    list.replaceChildren(...others.map((s) => muteItem(s, list.dataset.prefix, io)));
  }
}

function muteItem(seat, prefix, io) {
  const id = `${prefix}-${seat.seat}`;
  const name = seatName(seat.seat);
  return el(
    "li",
    {},
    el("input", {
      type: "checkbox",
      id,
      checked: muted.has(seat.seat),
      onchange: (event) => {
        if (event.target.checked) muted.add(seat.seat);
        else muted.delete(seat.seat);
        saveMuted();
        bubbles.delete(seat.seat);
        announce(
          event.target.checked
            ? t("Reactions of %(name)s are muted.", { name })
            : t("Reactions of %(name)s are shown again.", { name }),
        );
        io.render();
      },
    }),
    el("label", { for: id, text: t("Mute %(name)s", { name }) }),
  );
}

// The picker and the mute list beside the hand open where they cover the least: the first place
// of placePopover's list that covers no card of the hand, neither Play nor Pass and not the play
// to beat; otherwise above the action buttons (over the hand, never over Play and Pass). An
// outside tap or Escape closes them.

function visibleRect(node) {
  const rect = node.getBoundingClientRect();
  return rect.width > 0 && rect.height > 0 ? rect : null;
}

function rects(selector) {
  return [...document.querySelectorAll(selector)].map(visibleRect).filter(Boolean);
}

function placePopover(details) {
  const panel = details.querySelector(".reaction-buttons, .mute-list");
  if (!panel || !details.closest("#hand-area")) return;
  const button = details.querySelector("summary").getBoundingClientRect();
  const w = panel.offsetWidth;
  const h = panel.offsetHeight;
  const room = document.documentElement.clientWidth;
  const height = document.documentElement.clientHeight;
  const start = details.classList.contains("reaction-mutes") ? button.right - w : button.left;
  const clampLeft = (x) => Math.min(Math.max(x, GAP), Math.max(GAP, room - w - GAP));
  const near = clampLeft(start);
  const actions = rects("#actions .button");
  const cards = rects("#hand .hand-card");
  const lastPlay = rects("#trick-plays .is-top, #taken:not([hidden]), .game-bar");
  const box = ({ left, top }) => ({ left, top, right: left + w, bottom: top + h });
  const fits = (place) => place.top >= GAP && place.top + h <= height - GAP;
  const clear = (place, keep) => !keep.some((k) => overlaps(box(place), k));
  const free = (place) =>
    fits(place) && clear(place, actions) && clear(place, cards) && clear(place, lastPlay);
  const chips = $("players").getBoundingClientRect();
  // where it may go, best first: above or below its button; on the felt above the hand; just
  // above the cards (over the hand's own lines); over the others' chips or at the foot of the
  // board (a moment, while the person picks: issue 26) — never over a card, Play, Pass or the
  // play to beat or the toolbar
  const places = [
    { left: near, top: button.top - GAP - h },
    { left: near, top: button.bottom + GAP },
    { left: near, top: $("hand-area").getBoundingClientRect().top - GAP - h },
    { left: near, top: (cards.length ? Math.min(...cards.map((k) => k.top)) : button.top) - GAP - h },
    { left: clampLeft(chips.left), top: chips.top },
    { left: clampLeft(chips.left), top: $("board").getBoundingClientRect().bottom - GAP - h },
  ];
  // where none is free, over the cards rather than over the play to beat
  let place = places.find(free) || places.find((p) => fits(p) && clear(p, actions) && clear(p, lastPlay));
  if (!place) {
    place = { left: near, top: button.top - GAP - h };
    const hit = actions.filter((k) => overlaps(box(place), k));
    if (hit.length) place.top = Math.min(...hit.map((k) => k.top)) - GAP - h;
    if (place.top < GAP) place.top = button.bottom + GAP; // no room above: below its button
  }
  // (set through the CSS object model, which a content security policy allows)
  panel.style.setProperty("left", `${Math.round(place.left)}px`);
  panel.style.setProperty("top", `${Math.round(place.top)}px`);
}

function closePopover(details, refocus) {
  details.open = false;
  if (refocus) details.querySelector("summary").focus();
}

function setUpPopovers() {
  for (const details of document.querySelectorAll(POPOVERS)) {
    // opened here rather than by the browser, so that it is placed before it is first drawn
    details.querySelector("summary").addEventListener("click", (event) => {
      event.preventDefault();
      details.open = !details.open;
      if (details.open) placePopover(details);
    });
  }
  document.addEventListener(
    "pointerdown",
    (event) => {
      for (const details of document.querySelectorAll(`${POPOVERS}`)) {
        if (details.open && !details.contains(event.target)) closePopover(details, false);
      }
    },
    true,
  );
  // (in the capture phase: Escape closes an open picker before it clears a choice of cards)
  document.addEventListener(
    "keydown",
    (event) => {
      if (event.key !== "Escape") return;
      const open = [...document.querySelectorAll(POPOVERS)].filter((d) => d.open);
      if (!open.length) return;
      event.preventDefault();
      for (const details of open) closePopover(details, details.contains(document.activeElement));
    },
    true,
  );
  window.addEventListener("resize", () => {
    for (const details of document.querySelectorAll(POPOVERS)) if (details.open) placePopover(details);
  });
}

export function setUpReactions(io) {
  setUpPopovers();
  $("reaction-buttons").replaceChildren(
    ...config.reactions.map((r) =>
      el(
        "button",
        {
          type: "button",
          class: "button small reaction-button",
          "data-reaction": r.key,
          "aria-label": r.label,
          title: r.label,
          onclick: () => {
            send(r.key, io);
            const picker = $("reaction-bar");
            picker.open = false; // sent: the picker closes, the focus stays at its button
            picker.querySelector("summary").focus();
          },
        },
        r.emoji ? el("span", { "aria-hidden": "true", text: r.emoji }) : r.label,
      ),
    ),
  );
}
