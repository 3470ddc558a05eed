// The table page (/t/<id>): lobby, play, card exchange and results, drawn from the server's
// messages (docs/protocol.md). The server decides everything. This module connects, hands each
// message to the state (table-state.js), then draws the whole screen from that state with the
// board, hand, lobby, results and narration modules, and adds the motion and turn signals.
import { language, t, tn } from "./i18n.js";
import { $, el, reducedMotion } from "./table-dom.js";
import {
  renderExchange,
  renderMe,
  renderPile,
  renderPlayers,
  renderRoundResults,
  renderTaken,
  renderTimer,
} from "./table-board.js";
import { joinList } from "./table-cards.js";
import {
  clearChoice,
  errorText,
  handCard,
  moveFocus,
  onHandKey,
  onPageKey,
  pass,
  play,
  renderActions,
  renderChoices,
  renderHand,
  showNote,
  updateNote,
} from "./table-hand.js";
import { copyLink, joinTable, renderLobby, sheetQuery, shareLink, showLobbyNote } from "./table-lobby.js";
import { deal, flip, flyFrom, pulse } from "./table-motion.js";
import { announce, describeEvent, renderAway, renderLog } from "./table-narration.js";
import { renderResults, renderScoreSheet, resultsGame, resultsShown } from "./table-results.js";
import { setSound, showTurn, soundOn, turnStarted, unlockAudio } from "./table-signals.js";
import * as Hints from "./table-hints.js";
import * as People from "./table-people.js";
import * as Reactions from "./table-reactions.js";
import * as State from "./table-state.js";
import { TableConnection, setHeartbeat, storedSeat } from "./table-net.js";

const { S, config, dispatch, giveCount, myTurn, owedByMe, seatName, seats, tableId, tablePhase, gamePhase, isHost } =
  State;
const app = $("table-app");

// ---------------------------------------------------------------------------- the messages

function onStatus(status) {
  dispatch({ type: "connection", status });
  renderConnection();
}

// What the connection knows that the state needs: whether a stored token is taking a seat back.
function rejoining() {
  const stored = storedSeat(tableId);
  return {
    joining: !connection.watch && Boolean(stored && !stored.left), // a watch link never takes a seat
    connection: connection.rejoining,
  };
}

function onMessage(message) {
  switch (message.type) {
    case "table":
      dispatch({ type: "server", message });
      showLobbyNote("");
      render();
      break;
    case "welcome": {
      const { back } = dispatch({ type: "server", message, pending: Boolean(connection.pending) });
      if (back) announce(t("You are back at your seat."));
      render();
      break;
    }
    case "state":
    case "change":
      onState(message);
      break;
    case "presence": {
      const { before } = dispatch({ type: "server", message });
      if (message.seat === S.seat && message.auto && !before) {
        announce(
          message.auto === "timeout"
            ? t("Your time ran out: the computer plays for you until you come back.")
            : t("The computer played for you while you were away."),
          true,
        );
      }
      render();
      break;
    }
    case "ack":
      dispatch({ type: "server", message });
      People.onAck();
      render();
      break;
    case "host_changed":
      People.showPeopleNote(People.onHostChanged(message));
      render();
      break;
    case "seat_lost":
      People.showPeopleNote(People.onSeatLost(message));
      render();
      break;
    case "moved":
      People.onMoved(message);
      render();
      break;
    case "suggestion":
      Hints.onSuggestion(message, io);
      break;
    case "reaction":
      Reactions.onReaction(message, io);
      break;
    case "error":
      onError(message);
      break;
    default:
      break;
  }
}

// A state or a change (which may carry a move's ack: told inside the change it made).
function onState(message) {
  const wasMyTurn = myTurn();
  const oldRects = placesOnScreen();
  const { shown, sync } = dispatch({ type: "server", message, rejoining: rejoining() });
  if (typeof message.ack === "number") People.onAck();
  if (sync) connection.sendSoon({ type: "sync" });
  if (!shown) return;
  const events = S.state.events;
  const lines = events.map(describeEvent).filter(Boolean);
  const nowMine = myTurn();
  if (nowMine && !wasMyTurn) {
    lines.push(
      S.view.phase === "exchange"
        ? tn("Your turn: give back %(num)s card.", "Your turn: give back %(num)s cards.", giveCount())
        : t("Your turn."),
    );
    turnStarted();
  }
  announce(lines.join(" "));
  render();
  updateNote();
  Hints.maybeAutoPass(io);
  if (nowMine && !wasMyTurn) pulse($("your-turn"));
  animate(events, oldRects);
}

async function onError(message) {
  const { sync } = dispatch({ type: "server", message });
  if (sync) connection.sendSoon({ type: "sync" });
  const text = await errorText(message.code, message.params);
  if (message.code === "reaction_rate_limited") {
    Reactions.showReactionNote(text); // beside the reactions, whoever's turn it is
    return;
  }
  showNote(text, true);
  if (!$("lobby").hidden) showLobbyNote(text);
  render();
}

// ------------------------------------------------------------------------------- motion

// Where each seat is on the screen now (before a change is drawn): the cards come from there.
function placesOnScreen() {
  const rects = new Map();
  if ($("game").hidden) return rects;
  for (const chip of document.querySelectorAll("#players .player")) {
    rects.set(Number(chip.dataset.seat), chip.getBoundingClientRect());
  }
  rects.set("pile", $("pile").getBoundingClientRect());
  rects.set("hand", $("hand").getBoundingClientRect());
  return rects;
}

function animate(events, rects) {
  if (reducedMotion() || $("game").hidden || !S.view) return;
  const pileRect = $("pile").getBoundingClientRect();
  for (const event of events) {
    if (event.event === "played") {
      const from = event.seat === S.seat ? rects.get("hand") : rects.get(event.seat);
      flyFrom(document.querySelector(`#trick-plays .is-top[data-seat="${event.seat}"] .card-group`), from);
    } else if (event.event === "round_started" && !event.exchange) {
      deal([...$("hand").children], pileRect);
    } else if ((event.event === "gift" || event.event === "exchange") && event.to === S.seat && event.cards) {
      const from = rects.get(event.seat) || pileRect;
      for (const code of event.cards) flyFrom(handCard(code), from);
    } else if (event.event === "revolution" || config.reports.some((r) => r.name === event.event && r.turnsOrder)) {
      flip($("hand"));
    }
  }
  if (events.some((e) => e.event === "round_started" && e.exchange)) deal([...$("hand").children], pileRect);
}

// ------------------------------------------------------------------------------- drawing

function render() {
  const phase = tablePhase();
  const seated = S.seat !== null;
  app.dataset.connection = S.status;
  app.dataset.phase = phase || "";
  app.dataset.game = gamePhase() || "";
  app.dataset.myTurn = String(myTurn());
  app.dataset.seated = String(seated);
  app.dataset.v = String(S.state ? S.state.v : 0);
  app.dataset.players = String(seats().length);
  renderConnection();
  $("status-line").textContent = statusText();
  // at the end of a game its results are a sheet over the page; the lobby shows once it is closed
  $("lobby").hidden = !(phase === "lobby" || phase === "over") || resultsShown();
  // A spectator (no seat, a view with seat null) sees the game too, without a hand.
  const spectator = Boolean(!seated && S.view && S.view.seat === null);
  app.dataset.spectator = String(spectator);
  const inGame = Boolean(
    S.view && (seated || spectator) && phase === "playing" && S.view.phase !== "game_over",
  );
  $("game").hidden = !inGame;
  People.renderWatching();
  document.body.classList.toggle("is-at-table", inGame);
  People.placePeopleNote(inGame);
  $("watching").hidden = !(phase === "playing" && !seated) || inGame;
  renderLobby(io);
  $("leave-button").hidden = !seated || phase === "playing";
  People.renderComeBack();
  if (inGame) renderGame();
  Reactions.renderReactions(io);
  renderResults();
  renderAway();
  renderLog();
  if ($("score-dialog").open) renderScoreSheet();
  renderTimer(connection.serverNow());
  showTurn(myTurn());
}

// The parts' state of the trick (R39: a jack back, a lock), each beside the pile while it is
// on; what each is comes from the page's config (the parts' reports), none is named here.
function renderReports(view) {
  for (const report of config.reports) {
    const value = view[report.name];
    const on = report.kind === "suits" ? Boolean(value && value.length) : Boolean(value);
    $(report.id).hidden = !on;
    if (report.kind === "suits") {
      const suits = on ? joinList(value.map((suit) => config.suits[suit] || suit)) : "";
      $(report.id + "-text").textContent = on ? report.text.replace("%(suits)s", suits) : "";
    }
  }
}

function renderGame() {
  const view = S.view;
  $("round-info").textContent = t("Round %(round)s of %(rounds)s", { round: view.round, rounds: view.rules.rounds });
  $("revolution").hidden = !view.revolution;
  renderReports(view);
  $("game-status").textContent = statusText();
  renderPlayers();
  renderPile();
  renderExchange();
  renderRoundResults();
  const spectator = S.seat === null;
  $("hand-area").hidden = spectator;
  $("spectator-bar").hidden = !spectator;
  $("game-leave-button").hidden = spectator;
  if (!spectator) {
    renderMe();
    renderHand(io);
    renderActions();
    renderChoices(io);
    Hints.renderHints();
  }
  People.renderHostAbsent(io);
  const auto = S.table && S.seat !== null && S.table.seats[S.seat]?.auto;
  $("auto-banner").hidden = !auto;
}

function connectionText() {
  const texts = {
    connecting: t("Connecting to the table…"),
    reconnecting: t("Connection lost. Reconnecting…"),
    replaced: t("This seat is now open in another tab or window."),
    missing: t("There is no table at this link."),
  };
  return texts[S.status] || "";
}

// The banner at the top, and the same words beside the hand during a game.
function renderConnection() {
  const text = connectionText();
  app.dataset.connection = S.status;
  for (const banner of [$("connection"), $("conn-near")]) {
    if (banner.dataset.text !== text) {
      banner.dataset.text = text;
      banner.replaceChildren();
      if (text) {
        banner.append(el("span", { class: "spinner", "aria-hidden": "true" }), el("span", { text }));
        if (S.status === "replaced") {
          banner.append(
            el("button", { type: "button", class: "button", text: t("Play here"), onclick: () => connection.resume() }),
          );
        }
        if (S.status === "missing") banner.append(el("a", { href: "/", text: t("Create a new table") }));
      }
    }
    banner.hidden = !text;
    banner.className = `${banner.id === "connection" ? "connection" : "connection conn-near"} connection-${S.status}`;
  }
}

function statusText() {
  const view = S.view;
  const phase = tablePhase();
  if (!S.table) return "";
  if (phase === "lobby" || (phase === "over" && !view)) {
    if (S.seat === null) return t("Type your name and take a seat.");
    const empty = seats().filter((s) => s.kind === "empty").length;
    if (isHost()) {
      return empty
        ? tn(
            "%(num)s seat is empty: send the link to friends, or add computer players.",
            "%(num)s seats are empty: send the link to friends, or add computer players.",
            empty,
          )
        : t("Every seat is taken: start the game when you are ready.");
    }
    return t("Waiting for the host to start the game.");
  }
  if (phase === "playing" && S.seat === null) return "";
  if (!view) return "";
  if (view.phase === "game_over" || phase === "over") return t("The game is over.");
  if (view.phase === "round_over") return t("The round is over. The next round starts in a moment.");
  if (view.phase === "exchange") {
    if (myTurn()) {
      const pair = view.exchange_pairs.find((p) => p.receiver === S.seat);
      return tn(
        "Card exchange: give back %(num)s card of your choice to %(name)s.",
        "Card exchange: give back %(num)s cards of your choice to %(name)s.",
        giveCount(),
        { name: pair ? seatName(pair.giver) : "" },
      );
    }
    return t("Card exchange: %(name)s chooses cards to give back.", { name: seatName(view.turn) });
  }
  const mine = view.finished.indexOf(S.seat);
  if (mine >= 0) return t("You are out of cards (place %(place)s). The others play on.", { place: mine + 1 });
  // a seven pass or a ten discard owed (R36, R37): the same words as the note and the button
  const owed = view.owed;
  if (owed && owedByMe()) {
    return owed.kind === "give"
      ? tn("Your turn: give %(num)s card to %(name)s.", "Your turn: give %(num)s cards to %(name)s.", owed.count, {
          name: owed.receiver === null ? "" : seatName(owed.receiver),
        })
      : tn("Your turn: discard %(num)s card.", "Your turn: discard %(num)s cards.", owed.count);
  }
  if (owed && owed.seat !== S.seat && view.turn === owed.seat) {
    if (owed.kind === "give" && owed.receiver === S.seat) {
      return tn(
        "%(name)s chooses %(num)s card to give to you.",
        "%(name)s chooses %(num)s cards to give to you.",
        owed.count,
        { name: seatName(owed.seat) },
      );
    }
    return owed.kind === "give"
      ? tn(
          "%(name)s chooses %(num)s card to give to %(receiver)s.",
          "%(name)s chooses %(num)s cards to give to %(receiver)s.",
          owed.count,
          { name: seatName(owed.seat), receiver: seatName(owed.receiver) },
        )
      : tn("%(name)s chooses %(num)s card to discard.", "%(name)s chooses %(num)s cards to discard.", owed.count, {
          name: seatName(owed.seat),
        });
  }
  if (myTurn()) {
    return view.trick.length === 0
      ? t("Your turn: you lead, so play any set you like.")
      : t("Your turn: play higher cards than the last play, or pass.");
  }
  if (view.turn !== null) return t("%(name)s is playing…", { name: seatName(view.turn) });
  return "";
}

function tick() {
  const seconds = renderTimer(connection.serverNow());
  const { warn, swept } = dispatch({ type: "tick", now: performance.now(), secondsLeft: seconds });
  renderTaken();
  if (swept) renderLog(); // the ticker may say now what the won trick said
  if (warn) {
    announce(tn("%(num)s second left.", "%(num)s seconds left.", seconds), true);
  }
}

// -------------------------------------------------------------------------- the controls

function send(type, fields = {}) {
  if (!connection.open) {
    showNote(t("Not connected: your move is sent when the connection is back."), true);
  }
  dispatch({ type: "sent" });
  connection.send(type, fields);
  render();
}

// What the controls are given to act with: send a numbered move (`send`), a message without
// an answer (`sendRaw`), draw the screen again (`render`).
const io = { send, sendRaw: (message) => connection.sendSoon(message), render };

async function openRules() {
  const dialog = $("rules-dialog");
  const rules = S.view ? S.view.rules : S.table ? S.table.rules : null;
  const body = $("rules-body");
  if (rules) {
    const query = sheetQuery(rules);
    $("rules-page-link").href = `/rules/sheet?${query}`;
    body.textContent = t("Loading…");
    dialog.showModal();
    try {
      const response = await fetch(`/rules/sheet/part?${query}&lang=${language()}`);
      body.innerHTML = await response.text();
    } catch {
      body.textContent = t("The server cannot be reached. Try again in a moment.");
    }
  } else {
    dialog.showModal();
  }
}

function openDialog(id, fill) {
  fill();
  $(id).showModal();
}

function renderSoundButton() {
  const button = $("sound-button");
  const on = soundOn();
  button.setAttribute("aria-pressed", String(on));
  button.classList.toggle("is-off", !on);
}

function setUp() {
  $("share-link").value = `${location.origin}/t/${tableId}`;
  $("copy-button").addEventListener("click", copyLink);
  $("copy-watch-button").addEventListener("click", copyLink);
  if (navigator.share) {
    $("share-button").hidden = false;
    $("share-button").addEventListener("click", shareLink);
  }
  $("sit-form").addEventListener("submit", (event) => joinTable(event, io));
  $("hand").addEventListener("keydown", (event) => onHandKey(event, io));
  document.addEventListener("keydown", (event) => onPageKey(event, io));
  document.addEventListener("pointerdown", unlockAudio, { once: true });
  document.addEventListener("keydown", unlockAudio, { once: true });
  $("play-button").addEventListener("click", () => play(io));
  $("pass-button").addEventListener("click", () => pass(io));
  $("suggest-button").addEventListener("click", () => Hints.suggest(io));
  Reactions.setUpReactions(io);
  $("auto-pass-button").addEventListener("click", () => Hints.toggleAutoPass(io));
  $("clear-button").addEventListener("click", () => {
    clearChoice(io);
    moveFocus(0);
  });
  $("choice-cancel").addEventListener("click", () => {
    dispatch({ type: "choices", moves: null });
    render();
    moveFocus(0);
  });
  $("start-button").addEventListener("click", () => {
    if ($("start-button").getAttribute("aria-disabled") === "true") {
      const empty = seats().filter((s) => s.kind === "empty").map((s) => s.seat);
      if (empty.length) errorText("seats_empty", { seats: empty }).then((text) => showLobbyNote(text));
      return;
    }
    send("start");
  });
  $("fill-button").addEventListener("click", () => send("add_bot", { level: $("bot-level").value }));
  $("rematch-button").addEventListener("click", () => send("rematch"));
  $("results-close").addEventListener("click", () => {
    dispatch({ type: "results-closed", game: resultsGame() });
    render();
    $("lobby-heading").focus();
  });
  $("back-button").addEventListener("click", () => send("back"));
  $("leave-button").addEventListener("click", () => People.leaveSeat(io));
  // during a game, leaving gives the seat to a computer player: asked first (issue 26)
  $("game-leave-button").addEventListener("click", () => $("leave-dialog").showModal());
  $("leave-stay").addEventListener("click", () => $("leave-dialog").close());
  $("leave-confirm").addEventListener("click", () => {
    $("leave-dialog").close();
    People.leaveSeat(io);
  });
  $("come-back").addEventListener("click", () => People.comeBack(io));
  for (const id of ["rules-button", "game-rules-button"]) $(id).addEventListener("click", openRules);
  $("rules-close").addEventListener("click", () => $("rules-dialog").close());
  $("log-button").addEventListener("click", () =>
    openDialog("log-dialog", () => {
      $("log-full").replaceChildren(...[...$("log").children].map((li) => el("li", { text: li.textContent })));
    }),
  );
  $("score-button").addEventListener("click", () => openDialog("score-dialog", renderScoreSheet));
  for (const id of ["log-close", "score-close"]) {
    $(id).addEventListener("click", () => $(id).closest("dialog").close());
  }
  $("away-close").addEventListener("click", () => {
    dispatch({ type: "away-closed" });
    render();
  });
  $("sound-button").addEventListener("click", () => {
    setSound(!soundOn());
    renderSoundButton();
  });
  renderSoundButton();
  setInterval(tick, 250);
  new ResizeObserver(() => {
    if ($("game").hidden || !S.view) return;
    renderHand(io);
    Reactions.renderReactions(io); // an open picker is placed again beside the hand's new lines
  }).observe($("hand"));
  if (!storedSeat(tableId)) $("sit-name").value = localStorage.getItem("cardverse.name") || "";
  $("sit-name").addEventListener("change", (e) => {
    try {
      localStorage.setItem("cardverse.name", e.target.value.trim());
    } catch {
      // no storage
    }
  });
}

setHeartbeat(config.heartbeat);
const connection = new TableConnection(tableId, { onStatus, onMessage });
connection.watch = Boolean(config.watch);
// For the browser tests and the curious: drop the connection as a network failure would, or
// show a message as if the server had sent it.
window.cardverseTable = {
  drop: () => connection.drop(),
  rejoining: () => connection.rejoining,
  receive: (message) => onMessage(message),
  state: S,
  serverNow: () => connection.serverNow(),
  clock: () => ({ offset: connection.offset, rtt: connection.offsetRtt, lastSample: connection.lastSample }),
};
setUp();
render();
connection.connect();
