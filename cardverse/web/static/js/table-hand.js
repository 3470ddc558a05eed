// My hand and what I do with it: the cards laid out like a fan (overlapping, in rows when
// there are many, every card keeping a hit area of at least 44 px), choosing cards by pointer
// or keyboard, Play / Pass / Give back, the choice between plays that the same cards can make,
// and the note that says what the chosen cards would do (or why not, in the engine's words).
import { t, tn } from "./i18n.js";
import { cardLabel, cardsShort, describeMove, exactMoves, playWords, playableCards, sortCards } from "./table-cards.js";
import { $, cardImage, el } from "./table-dom.js";
import { announce } from "./table-narration.js";
import { S, config, dispatch, giveCount, legalMoves, myTurn, owedByMe, reversedOrder, seatName, seatNames } from "./table-state.js";

export const MIN_HIT = 44; // px of every card that a finger can reach
const RAISE = 16; // px a chosen card rises
const TOP = RAISE + 8; // room above the hand for a chosen card and its mark

export async function errorText(code, params = {}) {
  const query = new URLSearchParams({
    code,
    params: JSON.stringify(params || {}),
    names: JSON.stringify(seatNames()),
  });
  try {
    const response = await fetch(`/i18n/error?${query}`);
    return (await response.json()).text;
  } catch {
    return t("The server cannot be reached. Try again in a moment.");
  }
}

// Why the rules refuse these cards now, in words (the engine's check on my own view).
async function refusalText(cards) {
  const view = S.view;
  const position = {
    rules: view.rules,
    hands: view.hand_counts.map((count, seat) => (seat === S.seat ? view.hand : { count })),
    trick: view.trick,
    turn: S.seat,
    revolution: view.revolution,
    finished: view.finished,
    from_bottom: view.from_bottom,
  };
  // The parts' state of the trick (R39), checked against the trick by the engine.
  for (const report of config.reports) {
    if (view.rules[report.option]) position[report.name] = view[report.name];
  }
  try {
    const response = await fetch("/i18n/refusal", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ position, action: { action: "play", cards }, names: seatNames() }),
    });
    return await response.json();
  } catch {
    return { legal: null, text: t("The server cannot be reached. Try again in a moment.") };
  }
}

export function showNote(text, urgent = false) {
  const note = $("note");
  note.textContent = text;
  note.title = text; // whole where a short screen cuts it to one line
  note.classList.toggle("note-error", urgent);
  if (urgent) announce(text, true);
}

// The controls below are given `io`: {send (a numbered move), sendRaw, render}.
export async function play(io) {
  if (!S.view || S.busy) return;
  if (!myTurn()) {
    if (S.view.phase === "play" && S.view.turn !== null && S.seat !== null) {
      showNote(await errorText("not_your_turn", { seat: S.seat, turn: S.view.turn }), true);
    }
    return;
  }
  const codes = [...S.selected];
  const owed = owedByMe();
  if (S.view.phase === "exchange" || owed) {
    const moves = exactMoves(legalMoves(), S.selected);
    if (moves.length !== 1) {
      const code = owed ? "owed_count" : "give_count";
      showNote(await errorText(code, { count: giveCount() }), true);
      return;
    }
    dispatch({ type: "clear-choice" });
    io.send(owed ? owed.kind : "give", { cards: moves[0].cards });
    return;
  }
  if (!codes.length) {
    showNote(t("Choose the cards to play first, or pass."), true);
    return;
  }
  const moves = exactMoves(legalMoves(), S.selected);
  if (moves.length === 1) {
    playMove(moves[0], io);
  } else if (moves.length > 1) {
    dispatch({ type: "choices", moves });
    io.render();
    const first = document.querySelector("#choices button");
    if (first) first.focus();
    announce(t("These cards can be played in more than one way: choose one."));
  } else {
    const answer = await refusalText(codes);
    showNote(answer.text, true);
  }
}

export function playMove(move, io) {
  const fields = { cards: move.cards };
  if (move.jokers && Object.keys(move.jokers).length) fields.jokers = move.jokers;
  dispatch({ type: "clear-choice" });
  io.send("play", fields);
  $("hand").querySelector("[tabindex='0']")?.focus();
}

export async function pass(io) {
  if (!S.view || S.busy || S.view.phase !== "play") return;
  if (!myTurn()) {
    if (S.view.turn !== null && S.seat !== null) {
      showNote(await errorText("not_your_turn", { seat: S.seat, turn: S.view.turn }), true);
    }
    return;
  }
  if (!legalMoves().some((m) => m.action === "pass")) {
    showNote(await errorText("pass_on_lead", {}), true);
    return;
  }
  dispatch({ type: "clear-choice" });
  io.send("pass");
}

export function clearChoice(io) {
  dispatch({ type: "clear-choice" });
  io.render();
  updateNote();
}

function toggle(code, io) {
  dispatch({ type: "toggle-card", code });
  renderHand(io);
  renderActions();
  renderChoices(io);
  updateNote();
}

let noteAsked = 0; // the notes asked so far: an answer for an older choice is dropped

// Says what the chosen cards would do: a play, or why not (in words, from the engine).
export async function updateNote() {
  noteAsked += 1;
  const asked = noteAsked;
  const codes = [...S.selected];
  if (!S.view) return;
  if (!myTurn()) {
    showNote(codes.length ? t("Chosen: %(cards)s", { cards: cardsShort(codes) }) : "");
    return;
  }
  // A give-back, a seven pass or a ten discard: the status line says how many cards and to
  // whom; the note says what the chosen cards are, then what the button will do with them.
  const owed = owedByMe();
  if (S.view.phase === "exchange" || owed) {
    const ready = exactMoves(legalMoves(), S.selected).length > 0;
    const cards = cardsShort(codes);
    if (!codes.length) showNote("");
    else if (!ready) showNote(t("Chosen: %(cards)s", { cards }));
    else if (!owed) showNote(t("Give back %(cards)s: press Give back.", { cards }));
    else if (owed.kind === "give") {
      const name = owed.receiver === null ? "" : seatName(owed.receiver);
      showNote(t("Give %(cards)s to %(name)s: press Give.", { cards, name }));
    } else showNote(t("Discard %(cards)s face up: press Discard.", { cards }));
    return;
  }
  if (!codes.length) {
    showNote("");
    return;
  }
  const moves = exactMoves(legalMoves(), S.selected);
  if (moves.length) {
    showNote(
      t("%(play)s can be played: press Play.", {
        play: moves.length === 1 ? playWords(moves[0], reversedOrder()) : cardsShort(codes),
      }),
    );
    return;
  }
  const answer = await refusalText(codes);
  if (asked !== noteAsked) return; // the choice changed meanwhile
  showNote(answer.text);
}

// -- drawing the hand -------------------------------------------------------------------------

const handButtons = new Map();
let focusedCode = null;

// A card's name says first what the card shows ("4D", "★Joker"), then the card in words, so
// that a voice-control user can say what they see (WCAG 2.5.3, label in name).
function handCardName(code, image) {
  const shown = [...image.querySelectorAll("text")].map((node) => node.textContent).join("");
  return shown ? `${shown} ${cardLabel(code)}` : cardLabel(code);
}

function handButton(code, io) {
  let button = handButtons.get(code);
  if (button) return button;
  const image = cardImage(code);
  image.setAttribute("aria-hidden", "true");
  image.removeAttribute("role");
  image.querySelector("title")?.remove(); // the button's own name says it
  button = el(
    "button",
    {
      type: "button",
      class: "hand-card",
      "data-card": code,
      "aria-pressed": "false",
      "aria-label": handCardName(code, image),
      tabindex: "-1",
      onclick: () => {
        focusCard(code);
        toggle(code, io);
      },
    },
    image,
    el("span", { class: "mark", "aria-hidden": "true" }),
  );
  handButtons.set(code, button);
  return button;
}

export function handCard(code) {
  return handButtons.get(code) || null;
}

function focusCard(code) {
  focusedCode = code;
  for (const [key, button] of handButtons) button.tabIndex = key === code ? 0 : -1;
  handButtons.get(code)?.focus();
}

// Where each card goes: as few rows as keep a hit area of MIN_HIT px per card, the cards of a
// row overlapping evenly, the rows overlapping so that each shows the cards' corners.
function fanLayout(count, width, cardWidth) {
  const cardHeight = cardWidth * 1.4;
  const perRowMax = Math.max(1, Math.floor((width - cardWidth) / MIN_HIT) + 1);
  const rows = Math.max(1, Math.ceil(count / perRowMax));
  const perRow = Math.ceil(count / rows);
  const step = perRow > 1 ? Math.min(cardWidth + 6, (width - cardWidth) / (perRow - 1)) : 0;
  // a chosen card of the row below rises into this row: the hit area stays above it
  const rowStep = Math.max(MIN_HIT + RAISE + 2, Math.round(cardHeight * 0.56));
  const places = [];
  for (let i = 0; i < count; i += 1) {
    const row = Math.floor(i / perRow);
    const inRow = Math.min(perRow, count - row * perRow);
    const used = (inRow - 1) * step + cardWidth;
    const left = (width - used) / 2 + (i - row * perRow) * step;
    places.push({ left, top: TOP + row * rowStep });
  }
  return { places, height: TOP + (rows - 1) * rowStep + cardHeight + 2, step, rowStep, rows };
}

export function renderHand(io) {
  const view = S.view;
  const hand = $("hand");
  const order = sortCards(view.hand, reversedOrder());
  const hadFocus = hand.contains(document.activeElement);
  for (const [code, button] of handButtons) {
    if (!order.includes(code)) {
      button.remove();
      handButtons.delete(code);
    }
  }
  const current = [...hand.children].map((b) => b.dataset.card);
  if (current.join() !== order.join()) hand.replaceChildren(...order.map((code) => handButton(code, io)));
  const turn = myTurn();
  const playable = turn ? playableCards(legalMoves(), S.selected) : new Set();
  if (!order.includes(focusedCode)) focusedCode = order[0] ?? null;
  const cardWidth = hand.firstElementChild ? hand.firstElementChild.offsetWidth : 56;
  const layout = fanLayout(order.length, hand.clientWidth || 320, cardWidth);
  hand.style.height = order.length ? `${layout.height}px` : "0px";
  hand.dataset.rows = String(layout.rows);
  order.forEach((code, index) => {
    const button = handButton(code, io);
    const chosen = S.selected.has(code);
    const place = layout.places[index];
    button.style.left = `${place.left.toFixed(1)}px`;
    button.style.top = `${place.top}px`;
    button.setAttribute("aria-pressed", String(chosen));
    button.classList.toggle("is-playable", playable.has(code));
    button.classList.toggle("is-dim", turn && !chosen && !playable.has(code));
    button.setAttribute("aria-describedby", turn ? (playable.has(code) ? "can-play" : "cannot-play") : "");
    button.tabIndex = code === focusedCode ? 0 : -1;
  });
  if (hadFocus && !hand.contains(document.activeElement) && focusedCode) {
    handButtons.get(focusedCode)?.focus();
  }
  $("hand-heading").textContent = tn("Your hand: %(num)s card", "Your hand: %(num)s cards", view.hand.length);
  $("hand-empty").hidden = view.hand.length > 0;
}

export function renderActions() {
  const view = S.view;
  const turn = myTurn();
  const owed = owedByMe();
  const exchange = view.phase === "exchange";
  const playButton = $("play-button");
  if (exchange) playButton.textContent = t("Give back");
  else if (owed) playButton.textContent = owed.kind === "give" ? t("Give") : t("Discard");
  else playButton.textContent = t("Play");
  const canPass = turn && !exchange && !owed && legalMoves().some((m) => m.action === "pass");
  const out = view.finished.includes(S.seat) || view.hand.length === 0;
  // nothing to do in the card exchange (someone else gives back): no grey Give back either
  const waiting = exchange && !turn;
  $("actions").hidden = out || waiting || view.phase === "round_over" || view.phase === "game_over";
  playButton.setAttribute("aria-disabled", String(!turn || S.busy || S.selected.size === 0));
  // what the chosen cards are: a legal move ("ready"), part of one, or neither
  let selection = "none";
  if (S.selected.size) {
    if (exactMoves(legalMoves(), S.selected).length) selection = "ready";
    else selection = playableCards(legalMoves(), S.selected).size ? "partial" : "invalid";
  }
  $("table-app").dataset.selection = selection;
  const passButton = $("pass-button");
  passButton.hidden = exchange || Boolean(owed);
  passButton.setAttribute("aria-disabled", String(!canPass || S.busy));
  $("clear-button").hidden = S.selected.size === 0;
  $("hand-keys").hidden = $("actions").hidden;
  if (!turn && !S.selected.size) showNote("");
}

// The plays the chosen cards can make (a joker's rank, a set or a straight), in the pile area.
export function renderChoices(io) {
  const box = $("choices");
  const choices = S.choices;
  box.hidden = !choices;
  if (!choices) return;
  $("choice-list").replaceChildren(
    ...choices.map((move) =>
      el(
        "li",
        {},
        el("button", {
          type: "button",
          class: "button",
          text: describeMove(move, reversedOrder()),
          onclick: () => playMove(move, io),
        }),
      ),
    ),
  );
}

// -- the keyboard -----------------------------------------------------------------------------

export function moveFocus(step, toEnd = false) {
  const order = [...$("hand").children].map((b) => b.dataset.card);
  if (!order.length) return;
  let index = order.indexOf(focusedCode);
  if (toEnd) index = step < 0 ? 0 : order.length - 1;
  else index = Math.max(0, Math.min(order.length - 1, (index < 0 ? 0 : index) + step));
  focusCard(order[index]);
}

export function onHandKey(event, io) {
  const button = event.target.closest(".hand-card");
  if (!button) return;
  switch (event.key) {
    case "ArrowRight":
    case "ArrowDown":
      moveFocus(1);
      break;
    case "ArrowLeft":
    case "ArrowUp":
      moveFocus(-1);
      break;
    case "Home":
      moveFocus(-1, true);
      break;
    case "End":
      moveFocus(1, true);
      break;
    case " ":
      focusCard(button.dataset.card);
      toggle(button.dataset.card, io);
      break;
    case "Enter":
      play(io);
      break;
    default:
      return;
  }
  event.preventDefault();
}

export function onPageKey(event, io) {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest("input, select, textarea, dialog")) return;
  if (!S.view || $("game").hidden) return;
  const key = event.key.toLowerCase();
  if (key === "p") {
    event.preventDefault();
    pass(io);
  } else if (key === "h") {
    event.preventDefault();
    moveFocus(0);
  } else if (key === "escape" && S.selected.size) {
    clearChoice(io);
  }
}

