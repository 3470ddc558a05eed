// The one state object of the table page and what follows from it. Only this module writes
// it: the server's messages and the person's intents alike come in as actions through
// `dispatch(action)`, and every other module reads `S` and draws from it, so a reconnect or a
// reload draws the same screen as a live update. A `change` message (docs/protocol.md) is
// applied to the last state here, making the full state it stands for. What an action asks
// of the outside (a sync, an announcement) is returned to the caller, which owns the
// connection: nothing here sends or draws.
import { t } from "./i18n.js";
import { setNames } from "./table-cards.js";
import { forgetSeat, storeSeat } from "./table-net.js";

export const config = JSON.parse(document.getElementById("table-config").dataset.json);
setNames(config);
export const tableId = config.tableId;

export const S = {
  status: "connecting",
  seat: null, // my seat, once the server welcomed me
  table: null, // the last `table` message
  state: null, // the last `state` message
  view: null,
  timer: null, // {seat, deadline (ms of the server's clock), ends (ms, local fallback)}
  score: null, // the score sheet of the last state
  events: [], // the events of this round, as the server keeps them ("What happened")
  taken: null, // a trick just won, shown a moment: {seat, cleared, play, until}
  away: null, // what the computer did for me while I was away
  selected: new Set(),
  choices: null, // legal moves the selection could mean, when more than one
  busy: false, // a move was sent and is not answered yet
  lastGame: null, // the last game_over event
  resultsClosed: null, // the game whose results sheet was closed (its lobby is shown)
  noteAsked: 0,
  warnedSeconds: false,
  everWelcomed: false,
  optionsRefused: 0, // refusals so far: the host's option controls show the server's values again
  reactionLog: [], // reactions heard this round: {after (events before it), seat, reaction}
  reactionsHeard: 0, // reactions received, muted ones too (read by the tests)
  resyncAt: null, // the v of the state held when a change did not follow it (a sync was asked)
  suggestion: null, // the last hint asked or answered: {v (the state it is for), action or null}
  autoPasses: 0, // passes the auto-pass switch made on this page (read by the tests)
};

export const TAKEN_MS = 1500; // a won trick stays on the table this long before it is swept

export function seats() {
  return S.table ? S.table.seats : [];
}

export function seatName(index) {
  const seat = seats()[index];
  if (!seat) return t("Seat %(number)s", { number: index + 1 });
  if (seat.kind === "bot") return t("Computer %(number)s", { number: index + 1 });
  if (seat.kind === "empty" || !seat.name) return t("Seat %(number)s", { number: index + 1 });
  // a program through the UECda port (docs/uecda.md section 10) is marked wherever it is named
  if (seat.program) return t("%(name)s (program)", { name: seat.name });
  return seat.name;
}

export function seatNames() {
  return seats().map((_, index) => seatName(index));
}

export function isHost() {
  return S.table !== null && S.seat !== null && S.table.host === S.seat;
}

export function tablePhase() {
  return S.table ? S.table.phase : null;
}

export function gamePhase() {
  return S.view ? S.view.phase : null;
}

export function myTurn() {
  const view = S.view;
  return Boolean(
    view &&
      tablePhase() === "playing" &&
      view.turn === S.seat &&
      view.legal_moves.length > 0 &&
      (view.phase === "play" || view.phase === "exchange"),
  );
}

export function legalMoves() {
  return myTurn() ? S.view.legal_moves : [];
}

export function giveCount() {
  const moves = legalMoves().filter((m) => m.action === "give" || m.action === "discard");
  return moves.length ? moves[0].cards.length : 0;
}

// A seven pass or ten discard I owe now (R36, R37): {seat, kind, count, receiver}, else null.
export function owedByMe() {
  const owed = S.view ? S.view.owed : null;
  return owed && owed.seat === S.seat && myTurn() ? owed : null;
}

// Whether the order in force is reversed (R32), as the server tells it.
export function reversedOrder() {
  return Boolean(S.view && S.view.reversed_order);
}

// Milliseconds left on the turn timer (null: no timer), by the server's deadline and the
// server's clock now (`serverNow`, ms).
export function timeLeftMs(serverNow) {
  const timer = S.timer;
  if (!timer) return null;
  const left = timer.deadline !== null ? timer.deadline - serverNow : timer.ends - performance.now();
  return Math.max(0, left);
}

// The round's events, kept as the server keeps them: a new game or round starts afresh.
export function addEvents(list, events) {
  let out = list;
  for (const event of events) {
    if (event.event === "game_started") out = [];
    else if (event.event === "round_started") {
      out = out.length && out[out.length - 1].event === "game_started" ? [out[out.length - 1]] : [];
    }
    out = [...out, event];
  }
  return out;
}

// The trick just won in these events: its winning play, who took it and whether it cleared.
function wonTrick(beforeTrick, events) {
  let trick = [...(beforeTrick || [])];
  let won = null;
  for (const event of events) {
    if (event.event === "played") trick.push({ seat: event.seat, cards: event.cards, jokers: event.jokers });
    else if (event.event === "round_started") trick = [];
    else if (event.event === "trick_ended") {
      const plays = trick.filter((entry) => entry.cards);
      won = {
        seat: event.seat,
        leader: event.leader,
        cleared: event.cleared,
        play: plays.length ? plays[plays.length - 1] : null,
      };
      trick = [];
    }
  }
  return won;
}

// -- the one writer ---------------------------------------------------------------------------

// Applies one action to the state and returns what the caller must do about it (see each
// case). Server messages come as {type: "server", message, ...facts of the connection}; the
// person's intents and the page's own events as {type: "<intent>", ...}.
export function dispatch(action) {
  switch (action.type) {
    case "server":
      return onServer(action);
    case "connection": // the connection's status: connecting, open, reconnecting, replaced…
      S.status = action.status;
      return null;
    case "sent": // a move went out and waits for its answer
      S.busy = true;
      return null;
    case "toggle-card": // a card of the hand chosen or put back
      if (S.selected.has(action.code)) S.selected.delete(action.code);
      else S.selected.add(action.code);
      S.choices = null;
      return null;
    case "clear-choice": // no card chosen (and no way of playing them to choose from)
      S.selected.clear();
      S.choices = null;
      return null;
    case "choices": // the plays the chosen cards can make, to choose from (null: none shown)
      S.choices = action.moves;
      return null;
    case "suggest": // a suggestion was asked for the state shown
      S.suggestion = { v: S.state.v, action: null };
      return null;
    case "suggestion": // the server's suggestion: its cards are chosen for me
      S.suggestion = { v: action.v, action: action.action };
      S.selected.clear();
      S.choices = null;
      for (const code of action.action.cards || []) S.selected.add(code);
      return null;
    case "auto-passed":
      S.autoPasses += 1;
      return null;
    case "reaction": // a reaction heard; `shown` unless its sender is muted
      S.reactionsHeard += 1;
      if (action.shown) {
        S.reactionLog = [...S.reactionLog, { after: S.events.length, seat: action.seat, reaction: action.reaction }];
      }
      return null;
    case "tick": // the clock: a won trick shown long enough is swept (see onTick)
      return onTick(action);
    case "results-closed": // the game's results sheet closed: the lobby behind it shows
      S.resultsClosed = action.game;
      return null;
    case "away-closed":
      S.away = null;
      return null;
    case "left": // my seat is given up (leave, seat lost): I watch now
      S.seat = null;
      return null;
    case "moved": // the host moved me to another seat
      S.seat = action.seat;
      return null;
    case "replay": // the replay viewer's game: its seats, totals and score sheet
      S.table = action.table;
      S.seat = null;
      S.view = action.view;
      S.score = action.score;
      return null;
    default:
      throw new Error(`unknown action ${action.type}`);
  }
}

// The clock: returns {warn: my last ten seconds begin (once a turn, to be announced),
// swept: the won trick shown has just gone}.
function onTick({ now, secondsLeft }) {
  const swept = Boolean(S.taken && now >= S.taken.until);
  if (swept) S.taken = null;
  const warn =
    S.timer && S.timer.seat === S.seat && secondsLeft !== null && secondsLeft <= 10 && !S.warnedSeconds && myTurn();
  if (warn) S.warnedSeconds = true;
  return { warn: Boolean(warn), swept };
}

// A message of the server. Returns, by type: welcome {back: a returning seat to greet};
// state and change {shown: whether it was applied, sync: a full state must be asked};
// presence {before: the seat's auto before it}; error {sync}; others null.
function onServer({ message, pending, rejoining }) {
  switch (message.type) {
    case "table":
      onTable(message);
      return null;
    case "welcome": {
      const back = (S.seat !== null || Boolean(message.resumed)) && S.everWelcomed;
      onWelcome(message, pending);
      S.everWelcomed = true;
      return { back };
    }
    case "state":
      if (typeof message.ack === "number") S.busy = false;
      return { shown: onState(message, rejoining), sync: false };
    case "change": {
      if (typeof message.ack === "number") S.busy = false;
      const applied = applyChange(message);
      if (applied.gap) return { shown: false, sync: askFullState() };
      return { shown: applied.state ? onState(applied.state, rejoining) : false, sync: false };
    }
    case "presence":
      return { before: onPresence(message) };
    case "ack":
      S.busy = false;
      return null;
    case "error":
      S.busy = false;
      if (["hints_off", "nothing_to_suggest", "suggestion_stale"].includes(message.code)) S.suggestion = null;
      if (message.code !== "reaction_rate_limited") S.optionsRefused += 1;
      if (message.code === "bad_token") {
        onBadToken();
        return { sync: true }; // watch instead: the spectator's state
      }
      return { sync: false };
    default:
      return null;
  }
}

// -- the server's messages ------------------------------------------------------------------

function onWelcome(message, pending) {
  S.seat = message.seat;
  if (message.token) storeSeat(tableId, message.seat, message.token);
  S.busy = Boolean(pending);
}

function onTable(message) {
  const before = S.table;
  S.table = message;
  if (message.phase === "playing" && before && before.phase !== "playing") {
    S.lastGame = null; // a new game (or a rematch)
    S.away = null;
  }
  if (message.phase === "lobby") {
    S.view = null;
    S.events = [];
  }
}

// A state: returns false when it is older than the one shown (and is dropped). `rejoining`
// tells whether a stored token is taking a seat back ({joining: before any welcome, this
// connection: awaiting its welcome}).
function onState(message, rejoining) {
  if (S.state && message.v < S.state.v) return false;
  // A spectator's state while the stored token is taking the seat back (a reload, or a
  // reconnect while the seat's hand is still shown): the seat's state comes next.
  const taking = S.seat === null ? rejoining.joining : rejoining.connection;
  if (message.view.seat === null && taking) return false;
  const before = S.view;
  const firstEvent = S.events[0];
  S.state = message;
  S.view = message.view;
  if (message.score) S.score = message.score;
  if (before && (before.phase !== S.view.phase || before.round !== S.view.round)) {
    S.selected.clear(); // a new round or the end of the exchange: a fresh choice
  }
  const timer = message.timer;
  S.timer = timer
    ? {
        seat: timer.seat,
        deadline: typeof timer.deadline === "number" ? timer.deadline : null,
        ends: performance.now() + timer.ends_in * 1000,
      }
    : null;
  S.warnedSeconds = false;
  if (Array.isArray(message.log)) {
    S.events = addEvents([], message.log); // a full state: any change may follow it
    S.resyncAt = null;
  } else {
    S.events = addEvents(S.events, message.events);
  }
  if (S.events[0] !== firstEvent) S.reactionLog = []; // a new round's log (or a full one)
  if (Array.isArray(message.away) && message.away.length) S.away = message.away;
  for (const event of message.events) if (event.event === "game_over") S.lastGame = event;
  const won = wonTrick(before ? before.trick : [], message.events);
  if (won) S.taken = { ...won, until: performance.now() + TAKEN_MS };
  // Cards that left the hand cannot stay chosen; a new turn starts with a fresh choice.
  const hand = new Set(S.view.hand);
  for (const code of [...S.selected]) if (!hand.has(code)) S.selected.delete(code);
  if (!myTurn() || (before && before.hand.join() !== S.view.hand.join())) S.choices = null;
  return true;
}

// A change: the full state it makes of the one held ({state}), or {gap: true} when it does
// not follow that state (the caller asks for the full state), or {} when there is nothing
// to apply it to yet (a full state is on its way) or it is older than the one held.
function applyChange(message) {
  const state = S.state;
  if (!state || !S.view) return {};
  if (message.v < state.v || (message.v === state.v && message.from !== state.v)) return {};
  if (message.from !== state.v) return { gap: true };
  const delta = message.view;
  const view = { ...S.view };
  for (const key of Object.keys(delta)) {
    if (key === "history_at") continue;
    if (key === "history") {
      const at = delta.history_at;
      if (typeof at !== "number" || at > view.history.length) return { gap: true };
      view.history = view.history.slice(0, at).concat(delta.history);
    } else {
      view[key] = delta[key];
    }
  }
  return {
    state: {
      type: "state",
      v: message.v,
      at: message.at,
      view,
      timer: message.timer,
      events: message.events,
      score: message.score || state.score,
    },
  };
}

// A gap: the full state is asked once for the state held (returns whether to ask now).
function askFullState() {
  const held = S.state ? S.state.v : null;
  if (S.resyncAt === held) return false;
  S.resyncAt = held;
  return true;
}

function onPresence(message) {
  if (!S.table) return null;
  const seat = S.table.seats[message.seat];
  if (!seat) return null;
  seat.connected = message.connected;
  const before = seat.auto;
  seat.auto = message.auto;
  return before;
}

function onBadToken() {
  forgetSeat(tableId);
  S.seat = null;
}
