// The replay viewer (/t/<id>/replay/<game>, or /replay for a file): a finished game's record,
// replayed by the server's engine (POST /replay/read, cardverse/web/replay.py), shown step by
// step with every hand face up. It reads the record exactly as it is downloaded, or a record
// file picked from disk; the sentences of each step are the live table's "What happened".
import { t, tn } from "./i18n.js";
import { cardsShort } from "./table-cards.js";
import { $, cardRow, el } from "./table-dom.js";
import { announce, describeEvent } from "./table-narration.js";
import { renderScoreSheet } from "./table-results.js";
import { S, config, dispatch, seatName } from "./table-state.js";

const root = $("replay");
const place = config.replay || {};
let game = null; // the answer of /replay/read: players, rounds, steps, score
let at = 0;
let sentences = [];
const firstHeading = $("replay-heading").textContent;

async function readRecord(text) {
  const response = await fetch(`/replay/read?lang=${document.documentElement.lang || "en"}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: text,
  });
  const answer = await response.json();
  if (!response.ok) throw answer;
  return answer;
}

function showError(answer) {
  const text = (answer && answer.text) || t("The server cannot be reached. Try again in a moment.");
  $("open-error").textContent = text;
  const detail = answer && answer.detail;
  $("open-detail").hidden = !detail;
  $("open-detail-text").textContent = detail || "";
  root.dataset.state = "refused";
  $("replay-view").hidden = true; // nothing of an earlier record stays shown
  $("replay-heading").textContent = firstHeading;
  game = null;
}

function stepSentence(step) {
  const lines = step.events.map(describeEvent).filter(Boolean);
  return lines.join(" ");
}

function where(step) {
  if (step.kind === "deal") return t("Round %(round)s: the deal", { round: step.round });
  if (step.kind === "gifts" || step.kind === "give_back") {
    return t("Round %(round)s: the card exchange", { round: step.round });
  }
  return t("Round %(round)s, trick %(trick)s", { round: step.round, trick: step.trick });
}

function show(answer) {
  game = answer;
  // the seats as the live table names them (computer players as "Computer 2")
  dispatch({
    type: "replay",
    table: {
      seats: answer.players.map((player, seat) => ({
        seat,
        kind: player.ai ? "bot" : "human",
        name: player.name,
        level: player.ai || null,
      })),
    },
    view: { points: answer.score.totals }, // what the score sheet reads
    score: answer.score,
  });
  sentences = answer.steps.map(stepSentence);
  $("replay-log").replaceChildren(
    ...answer.steps.map((step, index) =>
      el(
        "li",
        { "data-step": String(index) },
        el("button", { type: "button", class: "log-step", text: sentences[index] || where(step), onclick: () => go(index, true) }),
      ),
    ),
  );
  $("round-select").replaceChildren(
    ...answer.rounds.map((round) => el("option", { value: String(round.round), text: t("Round %(round)s", { round: round.round }) })),
  );
  const range = $("step-range");
  range.max = String(answer.steps.length - 1);
  renderScoreSheet();
  $("replay-view").hidden = false;
  $("open-error").textContent = "";
  $("open-detail").hidden = true;
  root.dataset.state = "shown";
  root.dataset.steps = String(answer.steps.length);
  go(0, false);
}

function fillTricks(round) {
  const entry = game.rounds.find((r) => r.round === round);
  const select = $("trick-select");
  const wanted = `${round}:${entry.tricks.length}`;
  if (select.dataset.round !== wanted) {
    select.replaceChildren(
      el("option", { value: String(entry.first), text: t("The deal") }),
      ...entry.tricks.map((first, index) => el("option", { value: String(first), text: t("Trick %(trick)s", { trick: index + 1 }) })),
    );
    select.dataset.round = wanted;
  }
}

function seatItem(step, seat) {
  const cards = step.hands[seat];
  const out = step.finished.indexOf(seat);
  const label = cards.length
    ? t("%(name)s holds %(cards)s", { name: seatName(seat), cards: cardsShort(cards) })
    : t("%(name)s holds no cards", { name: seatName(seat) });
  return el(
    "li",
    { class: `replay-seat${step.turn === seat ? " is-turn" : ""}`, "data-seat": String(seat), "data-cards": cards.join(" ") },
    el(
      "div",
      { class: "replay-seat-head" },
      el("strong", { text: seatName(seat) }),
      step.turn === seat ? el("span", { class: "badge", text: t("to play") }) : null,
      out >= 0 ? el("span", { class: "badge", text: t("Out: place %(place)s", { place: out + 1 }) }) : null,
      el("span", { class: "hint", text: tn("%(num)s point", "%(num)s points", step.points[seat]) }),
    ),
    cards.length ? cardRow(cards, label, { revolution: step.reversed_order }) : el("p", { class: "hint", text: label }),
  );
}

export function go(index, speak = true) {
  if (!game) return;
  at = Math.max(0, Math.min(game.steps.length - 1, index));
  const step = game.steps[at];
  root.dataset.step = String(at);
  $("replay-where").textContent = where(step);
  $("replay-now").textContent = sentences[at];
  $("replay-seats").replaceChildren(...step.hands.map((_, seat) => seatItem(step, seat)));
  $("replay-pile").replaceChildren(
    ...step.pile
      .filter((entry) => entry.action === "play")
      .map((entry) =>
        el(
          "li",
          { class: "trick-play" },
          el("span", { class: "trick-who", text: seatName(entry.seat) }),
          cardRow(entry.cards, cardsShort(entry.cards), { jokers: entry.jokers, revolution: step.reversed_order }),
        ),
      ),
  );
  $("pile-empty").hidden = step.pile.some((entry) => entry.action === "play");
  for (const item of $("replay-log").children) {
    const current = Number(item.dataset.step) === at;
    item.classList.toggle("is-current", current);
    const button = item.firstElementChild;
    if (current) button.setAttribute("aria-current", "step");
    else button.removeAttribute("aria-current");
  }
  const log = $("replay-log");
  const current = log.children[at];
  if (current) log.scrollTop = current.offsetTop - log.clientHeight / 2; // the log is positioned
  $("step-range").value = String(at);
  $("step-range").setAttribute("aria-valuetext", `${where(step)}. ${sentences[at]}`);
  $("round-select").value = String(step.round);
  fillTricks(step.round);
  const entry = game.rounds.find((r) => r.round === step.round);
  const trickFirst = step.trick > 0 ? entry.tricks[step.trick - 1] : entry.first;
  $("trick-select").value = String(trickFirst);
  $("first-step").disabled = at === 0;
  $("prev-step").disabled = at === 0;
  $("next-step").disabled = at === game.steps.length - 1;
  $("last-step").disabled = at === game.steps.length - 1;
  if (speak) announce(`${where(step)}. ${sentences[at]}`);
}

function onKey(event) {
  if (!game || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest("input, select, textarea")) return;
  const moves = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: game.steps.length - 1 };
  if (!(event.key in moves)) return;
  event.preventDefault();
  go(moves[event.key]);
}

async function openFile(event) {
  const file = event.target.files && event.target.files[0];
  if (!file) return;
  root.dataset.state = "reading";
  try {
    show(await readRecord(await file.text()));
    $("replay-heading").textContent = t("Replay of %(file)s", { file: file.name });
  } catch (error) {
    showError(error && error.text ? error : null);
  }
}

async function openTableGame() {
  if (!place.id || !place.game || root.dataset.state !== "ready") return;
  try {
    const response = await fetch(`/api/${place.api}/${encodeURIComponent(place.id)}/records/${place.game}`);
    if (!response.ok) throw null;
    show(await readRecord(await response.text()));
  } catch (error) {
    showError(error && error.text ? error : null);
  }
}

$("record-file").addEventListener("change", openFile);
$("first-step").addEventListener("click", () => go(0));
$("prev-step").addEventListener("click", () => go(at - 1));
$("next-step").addEventListener("click", () => go(at + 1));
$("last-step").addEventListener("click", () => go(game.steps.length - 1));
$("step-range").addEventListener("input", (event) => go(Number(event.target.value)));
$("round-select").addEventListener("change", (event) => {
  const entry = game.rounds.find((r) => r.round === Number(event.target.value));
  go(entry.first);
});
$("trick-select").addEventListener("change", (event) => go(Number(event.target.value)));
document.addEventListener("keydown", onKey);
window.cardverseReplay = { go, state: () => ({ at, game }) };
openTableGame();
