// Hints: "Suggest" asks the server for the play the normal computer player would make from my
// own view (docs/protocol.md, Hints) and highlights it (the cards are chosen for me, Play plays
// them); the auto-pass switch passes for me whenever my legal moves hold nothing but a pass.
// The host can turn Suggest off for the table (table.hints); the auto-pass is always mine.
import { t } from "./i18n.js";
import { cardsShort, playWords } from "./table-cards.js";
import { $ } from "./table-dom.js";
import { showNote } from "./table-hand.js";
import { announce } from "./table-narration.js";
import { S, dispatch, legalMoves, myTurn, owedByMe, reversedOrder } from "./table-state.js";

const AUTO_PASS_KEY = "cardverse.autoPass";
let autoPass = readAutoPass();
let autoPassedAt = -1; // the state (v) the auto-pass answered already

function readAutoPass() {
  try {
    return localStorage.getItem(AUTO_PASS_KEY) === "1";
  } catch {
    return false;
  }
}

export function hintsOn() {
  return Boolean(S.table && S.table.hints !== false);
}

// The suggestion for the state shown now, or null (a suggestion is for one state only).
function current() {
  const hint = S.suggestion;
  return hint && S.state && hint.v === S.state.v ? hint : null;
}

// The controls are given `io`: {send (a numbered move), sendRaw, render}.
export function suggest(io) {
  if (!hintsOn() || S.seat === null) return;
  if (!myTurn()) {
    showNote(t("A suggestion is for your own turn, and it is not yours now."), true);
    return;
  }
  if (current()?.action) {
    onSuggestion({ v: S.state.v, action: current().action }, io); // the same answer again
    return;
  }
  dispatch({ type: "suggest" });
  showNote(t("Thinking of a suggestion…"));
  io.sendRaw({ type: "suggest" });
}

export function onSuggestion(message, io) {
  if (!S.state || message.v !== S.state.v || !myTurn()) return; // the game moved on
  const action = message.action;
  dispatch({ type: "suggestion", v: message.v, action });
  let text;
  if (action.action === "pass") {
    text = t("Suggestion: pass.");
  } else {
    const cards = action.action === "play" ? playWords(action, reversedOrder()) : cardsShort(action.cards || []);
    if (action.action === "play") text = t("Suggestion: play %(cards)s. Press Play to play it.", { cards });
    else if (action.action === "discard") text = t("Suggestion: discard %(cards)s.", { cards });
    else text = t("Suggestion: give %(cards)s.", { cards });
  }
  io.render();
  showNote(text);
  announce(text);
}

// The highlight: the suggested cards (chosen already) and Pass when the suggestion is a pass.
export function renderHints() {
  const hint = current();
  const action = hint ? hint.action : null;
  const cards = new Set(action && action.cards ? action.cards : []);
  for (const button of document.querySelectorAll("#hand .hand-card")) {
    button.classList.toggle("is-suggested", cards.has(button.dataset.card));
  }
  $("pass-button").classList.toggle("is-suggested", Boolean(action && action.action === "pass"));
  const acting = !$("actions").hidden; // not out of cards, not between rounds
  const suggestButton = $("suggest-button");
  suggestButton.hidden = !hintsOn() || !acting;
  $("auto-pass-button").hidden = !acting;
  suggestButton.setAttribute("aria-disabled", String(!myTurn() || Boolean(hint && !action)));
  const toggle = $("auto-pass-button");
  toggle.setAttribute("aria-pressed", String(autoPass));
  $("table-app").dataset.suggested = action ? action.action : "";
}

export function toggleAutoPass(io) {
  autoPass = !autoPass;
  try {
    localStorage.setItem(AUTO_PASS_KEY, autoPass ? "1" : "0");
  } catch {
    // no storage: the switch lasts for this page
  }
  announce(autoPass ? t("You pass automatically when you cannot play.") : t("Passing automatically is off."));
  renderHints();
  maybeAutoPass(io);
}

// After every state: pass for me if I am on turn and a pass is all I may do.
export function maybeAutoPass(io) {
  if (!autoPass || !myTurn() || S.busy || owedByMe() || S.view.phase !== "play") return;
  const moves = legalMoves();
  if (!moves.length || !moves.every((m) => m.action === "pass")) return;
  if (autoPassedAt === S.state.v) return;
  autoPassedAt = S.state.v;
  dispatch({ type: "auto-passed" });
  announce(t("You could not play: passed automatically."));
  io.send("pass");
}
