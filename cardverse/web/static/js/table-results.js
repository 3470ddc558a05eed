// The results: the final standings by total points with the titles of those places (and the
// last round's own titles apart), and the score sheet, points per round per player, open at
// any time.
import { t } from "./i18n.js";
import { joinList } from "./table-cards.js";
import { $, el } from "./table-dom.js";
import { lastRound, playerCell, roundRows } from "./table-board.js";
import { S, config, isHost, seatName, tableId, tablePhase } from "./table-state.js";

// Each seat's final place (0 = first, ties shared) and title, as the server tells them.
function finalStandings() {
  const sheet = S.score;
  const totals = S.view.points;
  if (sheet && sheet.standings) return { standing: sheet.standings, titles: sheet.titles || {} };
  if (S.lastGame) return { standing: S.lastGame.standings, titles: S.lastGame.titles || {} };
  return { standing: totals.map((mine) => totals.filter((other) => other > mine).length), titles: {} };
}

// The game whose results are shown (its number), for the record's link and the Close button.
export function resultsGame() {
  return S.lastGame ? S.lastGame.game : S.table ? S.table.game : 0;
}

// Whether the game's results sheet is open: at the end of a game, until it is closed.
export function resultsShown() {
  return Boolean(S.view && S.view.phase === "game_over" && S.resultsClosed !== resultsGame());
}

export function renderResults() {
  const box = $("results");
  const view = S.view;
  const show = resultsShown();
  box.hidden = !show;
  if (!show) return;
  const totals = view.points;
  const { standing, titles } = finalStandings();
  const order = totals.map((_, seat) => seat).sort((a, b) => standing[a] - standing[b] || a - b);
  $("final-body").replaceChildren(
    ...order.map((seat) =>
      el(
        "tr",
        { class: seat === S.seat ? "is-me" : null },
        el("td", { text: String(standing[seat] + 1) }),
        playerCell(seat, titles[String(seat)]),
        el("td", { text: String(totals[seat]) }),
      ),
    ),
  );
  const winners = order.filter((seat) => standing[seat] === 0);
  $("winner").textContent = winners.includes(S.seat)
    ? winners.length > 1
      ? t("You share first place!")
      : t("You win!")
    : t("Winner: %(names)s", { names: joinList(winners.map(seatName)) });
  const host = isHost();
  $("rematch-button").hidden = !host || tablePhase() !== "over";
  $("rematch-wait").hidden = host || tablePhase() !== "over";
  const game = resultsGame();
  const record = $("record-link");
  record.hidden = !game || !S.table || !S.table.records.includes(game);
  const api = config.watch ? "watch" : "tables"; // the watch link knows only its own id
  record.href = `/api/${api}/${encodeURIComponent(tableId)}/records/${game}`;
  // the replay viewer, every hand face up (a watch link's by its own id)
  const replay = $("replay-link");
  replay.hidden = record.hidden;
  replay.href = `/${config.watch ? "w" : "t"}/${encodeURIComponent(tableId)}/replay/${game}`;
  const data = lastRound();
  const roundBox = $("last-round");
  roundBox.hidden = !data || view.rules.rounds < 2;
  if (data) {
    $("last-round-body").replaceChildren(...roundRows(data.places, data.titles, data.roundPoints, data.totals));
  }
}

// The score sheet: a row per player, a column per round, and the totals.
export function renderScoreSheet() {
  const sheet = S.score;
  const body = $("score-body");
  if (!sheet || !S.view) {
    body.replaceChildren(el("p", { text: t("No round has been played yet.") }));
    return;
  }
  const rounds = sheet.rounds;
  const head = el(
    "tr",
    {},
    el("th", { scope: "col", text: t("Player") }),
    ...rounds.map((_, index) => el("th", { scope: "col", text: t("R%(round)s", { round: index + 1 }) })),
    el("th", { scope: "col", text: t("Total") }),
  );
  const rows = sheet.totals.map((total, seat) =>
    el(
      "tr",
      { class: seat === S.seat ? "is-me" : null },
      el("th", { scope: "row", text: seat === S.seat ? t("You") : seatName(seat) }),
      ...rounds.map((points) => el("td", { text: String(points[seat]) })),
      el("td", { class: "score-total", text: String(total) }),
    ),
  );
  body.replaceChildren(
    el(
      "div",
      { class: "table-scroll" },
      el(
        "table",
        { class: "standings score-sheet" },
        el("caption", { class: "sr-only", text: t("Score sheet") }),
        el("thead", {}, head),
        el("tbody", {}, rows),
      ),
    ),
    ...(rounds.length ? [] : [el("p", { class: "hint", text: t("No round has been played yet.") })]),
  );
}
