// The table page (/t/<id>): lobby, play, card exchange and results, drawn from the server's
// messages (docs/protocol.md). The server decides everything; this module shows it, lets a
// person choose cards by pointer or keyboard, and says in words what happens (ARIA live region).
import { language, t, tn } from "./i18n.js";
import {
  cardLabel,
  cardsShort,
  describeMove,
  exactMoves,
  playWords,
  playableCards,
  setNames,
  sortCards,
} from "./table-cards.js";
import { TableConnection, forgetSeat, storeSeat, storedSeat } from "./table-net.js";

const config = JSON.parse(document.getElementById("table-config").textContent);
setNames(config);
const tableId = config.tableId;
const $ = (id) => document.getElementById(id);
const app = $("table-app");

const S = {
  status: "connecting",
  seat: null, // my seat, once the server welcomed me
  table: null, // the last `table` message
  state: null, // the last `state` message
  view: null,
  timer: null, // {seat, deadline (ms, performance.now())}
  selected: new Set(),
  choices: null, // legal moves the selection could mean, when more than one
  busy: false, // a move was sent and is not answered yet
  lastRound: null, // the last round_over event
  lastGame: null, // the last game_over event
  log: [],
  noteAsked: 0,
  warnedSeconds: false,
  everWelcomed: false,
};

// ---------------------------------------------------------------------------------- helpers

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function cardImage(code, extraClass = "") {
  const template = document.querySelector(`#card-svgs template[data-card="${code}"]`);
  const svg = template ? template.content.firstElementChild.cloneNode(true) : el("span");
  if (extraClass) svg.classList.add(extraClass);
  return svg;
}

function cardRow(codes, revolution, label) {
  const row = el("span", { class: "card-group", role: "img", "aria-label": label });
  for (const code of sortCards(codes, revolution)) {
    const image = cardImage(code, "mini-card");
    image.setAttribute("aria-hidden", "true");
    image.removeAttribute("role");
    row.append(image);
  }
  return row;
}

function seats() {
  return S.table ? S.table.seats : [];
}

function seatName(index) {
  const seat = seats()[index];
  if (!seat) return t("Seat %(number)s", { number: index + 1 });
  if (seat.kind === "bot") return t("Computer %(number)s", { number: index + 1 });
  if (seat.kind === "empty" || !seat.name) return t("Seat %(number)s", { number: index + 1 });
  return seat.name;
}

function seatNames() {
  return seats().map((_, index) => seatName(index));
}

function isHost() {
  return S.table !== null && S.seat !== null && S.table.host === S.seat;
}

function tablePhase() {
  return S.table ? S.table.phase : null;
}

function gamePhase() {
  return S.view ? S.view.phase : null;
}

function myTurn() {
  const view = S.view;
  return Boolean(
    view &&
      tablePhase() === "playing" &&
      view.turn === S.seat &&
      view.legal_moves.length > 0 &&
      (view.phase === "play" || view.phase === "exchange"),
  );
}

function legalMoves() {
  return myTurn() ? S.view.legal_moves : [];
}

function giveCount() {
  const moves = legalMoves().filter((m) => m.action === "give" || m.action === "discard");
  return moves.length ? moves[0].cards.length : 0;
}

// A seven pass or ten discard I owe now (R36, R37): {seat, kind, count, receiver}, else null.
function owedByMe() {
  const owed = S.view ? S.view.owed : null;
  return owed && owed.seat === S.seat && myTurn() ? owed : null;
}

// Whether the order in force is reversed: a revolution or a jack back, not both (R32).
function reversedOrder() {
  return Boolean(S.view && S.view.revolution !== S.view.jack_back);
}

// The suits of a lock in words, from the page's config.
function suitWords(suits) {
  return suits.map((suit) => config.suits[suit] || suit).join(", ");
}

async function errorText(code, params = {}) {
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
  // The house rules' state of the trick (R31, R32), checked against the trick by the engine.
  if (view.rules.jack_back) position.jack_back = view.jack_back;
  if (view.rules.suit_lock) position.lock = view.lock;
  try {
    const response = await fetch("/i18n/refusal", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        position,
        action: { action: "play", cards },
        names: seatNames(),
      }),
    });
    return await response.json();
  } catch {
    return { legal: null, text: t("The server cannot be reached. Try again in a moment.") };
  }
}

// ------------------------------------------------------------------------------ announcing

function announce(text, urgent = false) {
  if (!text) return;
  const region = urgent ? $("alerts") : $("announcer");
  // a fresh node each time, so that a repeated sentence is read again
  region.replaceChildren(el("p", { text }));
}

function addLog(lines) {
  if (!lines.length) return;
  S.log.push(...lines);
  S.log = S.log.slice(-12);
  const list = $("log");
  list.replaceChildren(...S.log.map((line) => el("li", { text: line })));
  list.scrollTop = list.scrollHeight;
}

function describeEvent(event) {
  const who = (seat) => seatName(seat);
  const me = (seat) => seat === S.seat;
  const revolution = false; // the log reads the same whenever it is read again
  switch (event.event) {
    case "game_started":
      return t("Game %(game)s begins.", { game: event.game });
    case "round_started":
      return event.exchange
        ? t("Round %(round)s begins with the card exchange.", { round: event.round })
        : t("Round %(round)s begins: %(name)s leads.", {
            round: event.round,
            name: who(event.leader),
          });
    case "gift":
    case "give":
    case "seven_pass":
      if (event.cards && me(event.seat)) {
        return t("You give %(cards)s to %(name)s.", {
          cards: cardsShort(event.cards),
          name: who(event.to),
        });
      }
      if (event.cards && me(event.to)) {
        return t("%(name)s gives you %(cards)s.", {
          cards: cardsShort(event.cards),
          name: who(event.seat),
        });
      }
      return tn(
        "%(giver)s gives %(receiver)s %(num)s card.",
        "%(giver)s gives %(receiver)s %(num)s cards.",
        event.count,
        { giver: who(event.seat), receiver: who(event.to) },
      );
    case "exchange_done":
      return t("The card exchange is over: %(name)s leads.", { name: who(event.leader) });
    case "play": {
      const move = { action: "play", cards: event.cards, jokers: event.jokers };
      const what = playWords(move, revolution);
      return me(event.seat)
        ? t("You play %(play)s.", { play: what })
        : t("%(name)s plays %(play)s.", { name: who(event.seat), play: what });
    }
    case "pass":
      return me(event.seat) ? t("You pass.") : t("%(name)s passes.", { name: who(event.seat) });
    case "revolution":
      return event.on
        ? t("Revolution! The order of the cards is reversed.")
        : t("Counter-revolution: the normal order is back.");
    case "went_out":
      if (event.how === "forbidden") {
        return me(event.seat)
          ? t("Forbidden finish: you go out on a strong card and take place %(place)s.", { place: event.place })
          : t("Forbidden finish: %(name)s goes out on a strong card and takes place %(place)s.", {
              name: who(event.seat),
              place: event.place,
            });
      }
      if (event.how === "downfall") {
        return me(event.seat)
          ? t("Downfall: you lose the presidency and take place %(place)s.", { place: event.place })
          : t("Downfall: %(name)s loses the presidency and takes place %(place)s.", {
              name: who(event.seat),
              place: event.place,
            });
      }
      return me(event.seat)
        ? t("You are out of cards: place %(place)s.", { place: event.place })
        : t("%(name)s is out of cards: place %(place)s.", {
            name: who(event.seat),
            place: event.place,
          });
    case "jack_back":
      return event.on
        ? t("Jack back! The order is reversed until the trick ends.")
        : t("The jack back is over.");
    case "lock":
      return t("Suit lock: until the trick ends, only %(suits)s.", { suits: suitWords(event.suits) });
    case "owed":
      if (event.kind === "give") {
        return me(event.seat)
          ? tn("Give %(num)s card to %(name)s.", "Give %(num)s cards to %(name)s.", event.count, { name: who(event.to) })
          : tn("%(giver)s owes %(receiver)s %(num)s card.", "%(giver)s owes %(receiver)s %(num)s cards.", event.count, {
              giver: who(event.seat),
              receiver: who(event.to),
            });
      }
      return me(event.seat)
        ? tn("Discard %(num)s card.", "Discard %(num)s cards.", event.count)
        : tn("%(name)s must discard %(num)s card.", "%(name)s must discard %(num)s cards.", event.count, {
            name: who(event.seat),
          });
    case "discard":
      return me(event.seat)
        ? t("You discard %(cards)s.", { cards: cardsShort(event.cards) })
        : t("%(name)s discards %(cards)s.", { name: who(event.seat), cards: cardsShort(event.cards) });
    case "trick_won": {
      let text;
      if (me(event.seat)) text = event.cleared ? t("You clear the pile.") : t("You take the trick.");
      else if (event.cleared) text = t("%(name)s clears the pile.", { name: who(event.seat) });
      else text = t("%(name)s takes the trick.", { name: who(event.seat) });
      if (event.leader === null || event.leader === undefined || event.leader === event.seat) {
        return text;
      }
      const next = me(event.leader) ? t("You lead.") : t("%(name)s leads.", { name: who(event.leader) });
      return `${text} ${next}`;
    }
    case "round_over": {
      const titles = event.places
        .map((seat) => `${config.titles[event.titles[String(seat)]] || ""}: ${who(seat)}`)
        .join(", ");
      return t("Round %(round)s is over: %(titles)s.", { round: event.round, titles });
    }
    case "game_over": {
      const winners = event.standings
        .map((place, seat) => (place === 0 ? who(seat) : null))
        .filter((name) => name !== null);
      return t("The game is over. Winner: %(names)s.", { names: winners.join(", ") });
    }
    default:
      return "";
  }
}

// ---------------------------------------------------------------------------- the messages

function onStatus(status) {
  S.status = status;
  renderConnection();
}

function onMessage(message) {
  switch (message.type) {
    case "table":
      onTable(message);
      break;
    case "welcome":
      onWelcome(message);
      break;
    case "state":
      onState(message);
      break;
    case "presence":
      onPresence(message);
      break;
    case "ack":
      S.busy = false;
      render();
      break;
    case "error":
      onError(message);
      break;
    default:
      break;
  }
}

function onWelcome(message) {
  const resumed = S.seat !== null || message.resumed;
  S.seat = message.seat;
  if (message.token) storeSeat(tableId, message.seat, message.token);
  S.busy = Boolean(connection.pending);
  if (resumed && S.everWelcomed) announce(t("You are back at your seat."));
  S.everWelcomed = true;
  render();
}

function onTable(message) {
  const before = S.table;
  S.table = message;
  if (message.phase === "playing" && before && before.phase !== "playing") {
    S.lastRound = null; // a new game (or a rematch)
    S.lastGame = null;
  }
  if (message.phase === "lobby") S.view = null;
  showLobbyNote("");
  render();
}

function onState(message) {
  if (S.state && message.v < S.state.v) return;
  const wasMyTurn = myTurn();
  const oldHand = S.view ? S.view.hand.join() : "";
  const before = S.view;
  S.state = message;
  S.view = message.view;
  if (before && (before.phase !== S.view.phase || before.round !== S.view.round)) {
    S.selected.clear(); // a new round or the end of the exchange: a fresh choice
  }
  S.timer = message.timer
    ? { seat: message.timer.seat, deadline: performance.now() + message.timer.ends_in * 1000 }
    : null;
  S.warnedSeconds = false;
  const lines = [];
  for (const event of message.events) {
    if (event.event === "round_over") S.lastRound = event;
    if (event.event === "game_over") S.lastGame = event;
    if (event.event === "round_started") S.lastRound = null;
    const text = describeEvent(event);
    if (text) lines.push(text);
  }
  // Cards that left the hand cannot stay chosen; a new turn starts with a fresh choice.
  const hand = new Set(S.view.hand);
  for (const code of [...S.selected]) if (!hand.has(code)) S.selected.delete(code);
  if (!myTurn() || oldHand !== S.view.hand.join()) S.choices = null;
  if (myTurn() && !wasMyTurn) {
    lines.push(
      S.view.phase === "exchange"
        ? tn(
            "Your turn: give back %(num)s card.",
            "Your turn: give back %(num)s cards.",
            giveCount(),
          )
        : t("Your turn."),
    );
  }
  addLog(lines.filter((line) => !line.startsWith(t("Your turn."))));
  announce(lines.join(" "));
  render();
  updateNote();
}

function onPresence(message) {
  if (!S.table) return;
  const seat = S.table.seats[message.seat];
  if (!seat) return;
  seat.connected = message.connected;
  const before = seat.auto;
  seat.auto = message.auto;
  if (message.seat === S.seat && message.auto && !before) {
    announce(
      message.auto === "timeout"
        ? t("Your time ran out: the computer plays for you until you come back.")
        : t("The computer played for you while you were away."),
      true,
    );
  }
  render();
}

async function onError(message) {
  S.busy = false;
  if (message.code === "bad_token") {
    forgetSeat(tableId);
    S.seat = null;
  }
  const text = await errorText(message.code, message.params);
  showNote(text, true);
  if (!$("lobby").hidden) showLobbyNote(text);
  S.optionsRefused = (S.optionsRefused || 0) + 1;
  render();
}

// ------------------------------------------------------------------------------- actions

function send(type, fields = {}) {
  if (!connection.open) {
    showNote(t("Not connected: your move is sent when the connection is back."), true);
  }
  S.busy = true;
  connection.send(type, fields);
  render();
}

function showNote(text, urgent = false) {
  const note = $("note");
  note.textContent = text;
  note.classList.toggle("note-error", urgent);
  if (urgent) announce(text, true);
}

async function play() {
  if (!S.view || S.busy) return;
  if (!myTurn()) {
    if (S.view.phase === "play" && S.view.turn !== null && S.seat !== null) {
      showNote(
        await errorText("not_your_turn", { seat: S.seat, turn: S.view.turn }),
        true,
      );
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
    S.selected.clear();
    send(owed ? owed.kind : "give", { cards: moves[0].cards });
    return;
  }
  if (!codes.length) {
    showNote(t("Choose the cards to play first, or pass."), true);
    return;
  }
  const moves = exactMoves(legalMoves(), S.selected);
  if (moves.length === 1) {
    playMove(moves[0]);
  } else if (moves.length > 1) {
    S.choices = moves;
    render();
    const first = document.querySelector("#choices button");
    if (first) first.focus();
    announce(t("These cards can be played in more than one way: choose one."));
  } else {
    const answer = await refusalText(codes);
    showNote(answer.text, true);
  }
}

function playMove(move) {
  const fields = { cards: move.cards };
  if (move.jokers && Object.keys(move.jokers).length) fields.jokers = move.jokers;
  S.selected.clear();
  S.choices = null;
  send("play", fields);
  $("hand").querySelector("[tabindex='0']")?.focus();
}

async function pass() {
  if (!S.view || S.busy || S.view.phase !== "play") return;
  if (!myTurn()) {
    if (S.view.turn !== null && S.seat !== null) {
      showNote(
        await errorText("not_your_turn", { seat: S.seat, turn: S.view.turn }),
        true,
      );
    }
    return;
  }
  if (!legalMoves().some((m) => m.action === "pass")) {
    showNote(await errorText("pass_on_lead", {}), true);
    return;
  }
  S.selected.clear();
  S.choices = null;
  send("pass");
}

function toggle(code) {
  if (S.selected.has(code)) S.selected.delete(code);
  else S.selected.add(code);
  S.choices = null;
  renderHand();
  renderActions();
  updateNote();
}

// Says what the chosen cards would do: a play, or why not (in words, from the engine).
async function updateNote() {
  const asked = ++S.noteAsked;
  const codes = [...S.selected];
  if (!myTurn()) {
    showNote(codes.length ? t("Chosen: %(cards)s", { cards: cardsShort(codes) }) : "");
    return;
  }
  if (S.view.phase === "exchange") {
    const need = giveCount();
    const moves = exactMoves(legalMoves(), S.selected);
    showNote(
      moves.length
        ? t("Give back %(cards)s: press Give back.", { cards: cardsShort(codes) })
        : tn("Choose %(num)s card to give back.", "Choose %(num)s cards to give back.", need),
    );
    return;
  }
  const owed = owedByMe();
  if (owed) {
    const ready = exactMoves(legalMoves(), S.selected).length > 0;
    const name = owed.receiver === null ? "" : seatName(owed.receiver);
    if (owed.kind === "give") {
      showNote(
        ready
          ? t("Give %(cards)s to %(name)s: press Give.", { cards: cardsShort(codes), name })
          : tn("Choose %(num)s card to give to %(name)s.", "Choose %(num)s cards to give to %(name)s.", owed.count, { name }),
      );
    } else {
      showNote(
        ready
          ? t("Discard %(cards)s face up: press Discard.", { cards: cardsShort(codes) })
          : tn("Choose %(num)s card to discard.", "Choose %(num)s cards to discard.", owed.count),
      );
    }
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
  if (asked !== S.noteAsked) return; // the choice changed meanwhile
  showNote(answer.text);
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
  renderConnection();
  renderStatusLine();
  $("lobby").hidden = !(phase === "lobby" || phase === "over");
  $("game").hidden = !(S.view && seated && phase === "playing" && S.view.phase !== "game_over");
  $("watching").hidden = !(phase === "playing" && !seated);
  renderLobby();
  if (!$("game").hidden) renderGame();
  renderResults();
  renderTimer();
}

function renderConnection() {
  const banner = $("connection");
  const texts = {
    connecting: t("Connecting to the table…"),
    reconnecting: t("Connection lost. Reconnecting…"),
    replaced: t("This seat is now open in another tab or window."),
    missing: t("There is no table at this link."),
  };
  const text = texts[S.status] || "";
  app.dataset.connection = S.status;
  if (banner.dataset.text !== text) {
    banner.dataset.text = text;
    banner.replaceChildren();
    if (text) {
      banner.append(el("span", { class: "spinner", "aria-hidden": "true" }), el("span", { text }));
      if (S.status === "replaced") {
        banner.append(
          el("button", {
            type: "button",
            class: "button",
            text: t("Play here"),
            onclick: () => connection.resume(),
          }),
        );
      }
      if (S.status === "missing") {
        banner.append(el("a", { href: "/", text: t("Create a new table") }));
      }
    }
  }
  banner.hidden = !text;
  banner.className = `connection connection-${S.status}`;
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
  if (myTurn()) {
    return view.trick.length === 0
      ? t("Your turn: you lead, so play any set you like.")
      : t("Your turn: play higher cards than the last play, or pass.");
  }
  if (view.turn !== null) return t("%(name)s is playing…", { name: seatName(view.turn) });
  return "";
}

function renderStatusLine() {
  $("status-line").textContent = statusText();
}

// -- lobby --------------------------------------------------------------------------------

function levelName(level) {
  return config.levels[level] || level;
}

function renderLobby() {
  const section = $("lobby");
  if (section.hidden || !S.table) return;
  const phase = tablePhase();
  $("lobby-heading").textContent =
    phase === "over" ? t("Seats and options for the next game") : t("Waiting for players");
  $("share").hidden = phase !== "lobby";
  $("sit-form").hidden = S.seat !== null || !seats().some((s) => s.kind === "empty");
  $("table-full").hidden = S.seat !== null || seats().some((s) => s.kind === "empty");
  renderSeats();
  renderOptions();
  const host = isHost();
  $("host-tools").hidden = !host;
  $("start-button").hidden = !host || phase !== "lobby";
  const empty = seats().filter((s) => s.kind === "empty").length;
  $("start-button").setAttribute("aria-disabled", String(empty > 0 || S.busy));
  $("fill-button").hidden = empty === 0;
}

function renderSeats() {
  const list = $("seat-list");
  const focused = document.activeElement;
  const focusSeat = list.contains(focused) ? focused.dataset.seat : null;
  const host = isHost();
  const items = seats().map((seat) => {
    const index = seat.seat;
    const tags = [];
    if (index === S.seat) tags.push(el("span", { class: "tag tag-you", text: t("you") }));
    if (seat.host) tags.push(el("span", { class: "tag", text: t("host") }));
    if (seat.kind === "human" && !seat.connected) {
      tags.push(el("span", { class: "tag tag-away", text: t("offline") }));
    }
    let who;
    if (seat.kind === "bot") {
      who = el(
        "span",
        { class: "seat-who" },
        el("span", { class: "seat-name", text: seatName(index) }),
        el("span", {
          class: "seat-level",
          text: t("Computer player, level: %(level)s", { level: levelName(seat.level) }),
        }),
      );
    } else if (seat.kind === "human") {
      who = el("span", { class: "seat-who" }, el("span", { class: "seat-name", text: seat.name }));
    } else {
      who = el("span", { class: "seat-who seat-empty", text: t("Empty seat") });
    }
    const buttons = [];
    if (host && seat.kind === "bot") {
      buttons.push(
        el("button", {
          type: "button",
          class: "button small",
          "data-seat": String(index),
          "aria-label": t("Remove the computer player from seat %(number)s", { number: index + 1 }),
          text: t("Remove"),
          onclick: () => send("remove_bot", { seat: index }),
        }),
      );
    }
    if (host && seat.kind === "empty") {
      buttons.push(
        el("button", {
          type: "button",
          class: "button small",
          "data-seat": String(index),
          "aria-label": t("Add a computer player in seat %(number)s", { number: index + 1 }),
          text: t("Add a computer player"),
          onclick: () => send("add_bot", { seat: index, level: $("bot-level").value }),
        }),
      );
    }
    return el(
      "li",
      { class: `seat seat-${seat.kind}${index === S.seat ? " seat-mine" : ""}` },
      el("span", { class: "seat-number", text: t("Seat %(number)s", { number: index + 1 }) }),
      who,
      el("span", { class: "seat-tags" }, tags),
      buttons.length ? el("span", { class: "seat-actions" }, buttons) : null,
    );
  });
  list.replaceChildren(...items);
  if (focusSeat !== null && focusSeat !== undefined) {
    const again = list.querySelector(`[data-seat="${focusSeat}"]`);
    (again || $("bot-level")).focus();
  }
}

function rulesQuery(rules) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(rules)) {
    query.set(key, typeof value === "boolean" ? (value ? "1" : "0") : String(value));
  }
  return query.toString();
}

let optionsBuilt = false;

function optionValueLabel(option, value) {
  const found = (option.values || []).find((v) => v.value === value);
  return found ? found.label : String(value);
}

function timerLabel(seconds) {
  if (seconds === null || seconds === undefined) return t("No turn timer");
  return tn("%(num)s second", "%(num)s seconds", seconds);
}

function sendOptions(rules, turnTimer) {
  const fields = {};
  if (rules) fields.rules = rules;
  if (turnTimer !== undefined) fields.turn_timer = turnTimer;
  send("options", fields);
}

function buildOptionsForm() {
  const form = $("options-form");
  const presetBox = el(
    "fieldset",
    { class: "presets" },
    el("legend", { text: t("Preset") }),
    ...Object.entries(config.presets).map(([key, preset]) =>
      el(
        "label",
        { class: "radio" },
        el("input", {
          type: "radio",
          name: "preset",
          value: key,
          onchange: (event) => sendOptions({ preset: event.target.value }),
        }),
        el("span", { text: preset.name }),
      ),
    ),
    el("p", {
      class: "hint",
      text: t("A preset is a starting point. Options it locks keep their value."),
    }),
  );
  const rows = config.options.map((option) => {
    const id = `option-${option.name}`;
    let control;
    if (option.kind === "bool") {
      control = el("input", {
        type: "checkbox",
        id,
        "aria-describedby": `${id}-help`,
        onchange: (event) => sendOptions({ [option.name]: event.target.checked }),
      });
      return el(
        "div",
        { class: "option option-bool", "data-option": option.name },
        control,
        el("label", { for: id, text: option.label }),
        el("span", { class: "badge locked-badge", text: t("locked") }),
        el("p", { class: "hint", id: `${id}-help`, text: option.help }),
      );
    }
    control = el("select", {
      id,
      "aria-describedby": `${id}-help`,
      onchange: (event) => {
        const raw = event.target.value;
        // a choice keeps its value's own type (a name or a number), from the options table
        const chosen = option.values ? option.values.find((v) => String(v.value) === raw) : null;
        const value = chosen ? chosen.value : Number(raw);
        sendOptions({ [option.name]: value });
      },
    });
    return el(
      "div",
      { class: "option", "data-option": option.name },
      el("label", { for: id, text: option.label }),
      control,
      el("span", { class: "badge locked-badge", text: t("locked") }),
      el("p", { class: "hint", id: `${id}-help`, text: option.help }),
    );
  });
  const timer = el("select", {
    id: "option-turn-timer",
    onchange: (event) =>
      sendOptions(null, event.target.value === "" ? null : Number(event.target.value)),
  });
  for (const seconds of config.timers) {
    timer.append(el("option", { value: seconds === null ? "" : String(seconds), text: timerLabel(seconds) }));
  }
  const timerRow = el(
    "div",
    { class: "option", "data-option": "turn_timer" },
    el("label", { for: "option-turn-timer", text: t("Turn timer") }),
    timer,
    el("p", {
      class: "hint",
      text: t("When time runs out, a computer player plays for that person until they are back."),
    }),
  );
  form.replaceChildren(presetBox, ...rows, timerRow);
  optionsBuilt = true;
}

function fillSelect(select, values, current) {
  const wanted = values.map((v) => `${v.value}:${v.label}`).join("|");
  if (select.dataset.values !== wanted) {
    select.replaceChildren(
      ...values.map((v) => el("option", { value: String(v.value), text: v.label })),
    );
    select.dataset.values = wanted;
  }
  select.value = String(current);
}

function renderOptions() {
  const rules = S.table.rules;
  const preset = config.presets[rules.preset];
  const locked = new Set(preset ? preset.locked : []);
  const host = isHost();
  $("options-form").hidden = !host;
  $("options-list").hidden = host;
  $("sheet-link").href = `/rules/sheet?${rulesQuery(rules)}`;
  if (host) {
    if (!optionsBuilt) buildOptionsForm();
    // The controls show the table's options as the server last told them; a change the host
    // just made stays shown until the server's answer (a refusal puts the old value back).
    const stamp = JSON.stringify([rules, S.table.turn_timer, S.optionsRefused]);
    if (stamp === S.optionsShown) return;
    S.optionsShown = stamp;
    for (const radio of document.querySelectorAll("#options-form input[name=preset]")) {
      radio.checked = radio.value === rules.preset;
    }
    for (const option of config.options) {
      const row = document.querySelector(`#options-form [data-option="${option.name}"]`);
      const control = row.querySelector("input, select");
      const isLocked = locked.has(option.name);
      row.classList.toggle("is-locked", isLocked);
      row.querySelector(".locked-badge").hidden = !isLocked;
      // an option that needs another (the spade three needs a joker) waits for it
      const needs = option.requires;
      const waiting = Boolean(needs) && !(Number(rules[needs.option]) >= needs.at_least);
      control.disabled = isLocked || (waiting && !rules[option.name]);
      if (option.kind === "bool") {
        control.checked = Boolean(rules[option.name]);
      } else if (option.kind === "number") {
        // the option's range, or the narrower one its preset sets (players: 3-6 in cardverse)
        const [low, high] = (preset.ranges || {})[option.name] || [option.min, option.max];
        const values = [];
        for (let n = low; n <= high; n += 1) values.push({ value: n, label: String(n) });
        fillSelect(control, values, rules[option.name]);
      } else {
        fillSelect(control, option.values, rules[option.name]);
      }
    }
    const timer = $("option-turn-timer");
    const current = S.table.turn_timer === null ? "" : String(Math.round(S.table.turn_timer));
    if (![...timer.options].some((o) => o.value === current)) {
      timer.append(el("option", { value: current, text: timerLabel(Number(current)) }));
    }
    timer.value = current;
    return;
  }
  const items = [
    el("div", {}, el("dt", { text: t("Preset") }), el("dd", { text: preset ? preset.name : rules.preset })),
  ];
  for (const option of config.options) {
    const value = rules[option.name];
    const text = option.kind === "number" ? String(value) : optionValueLabel(option, value);
    items.push(
      el(
        "div",
        {},
        el("dt", { text: option.label }),
        el(
          "dd",
          {},
          text,
          locked.has(option.name) ? [" ", el("span", { class: "badge", text: t("locked") })] : null,
        ),
      ),
    );
  }
  items.push(
    el("div", {}, el("dt", { text: t("Turn timer") }), el("dd", { text: timerLabel(S.table.turn_timer) })),
  );
  $("options-list").replaceChildren(...items);
}

// -- the game -----------------------------------------------------------------------------

function renderGame() {
  const view = S.view;
  const rules = view.rules;
  $("round-info").textContent = t("Round %(round)s of %(rounds)s", {
    round: view.round,
    rounds: rules.rounds,
  });
  const revolution = $("revolution");
  revolution.hidden = !view.revolution;
  $("jack-back").hidden = !view.jack_back;
  $("lock").hidden = !(view.lock && view.lock.length);
  $("lock-suits").textContent =
    view.lock && view.lock.length ? t("Locked to %(suits)s", { suits: suitWords(view.lock) }) : "";
  renderPlayers();
  renderTrick();
  renderExchange();
  renderRoundResults();
  renderHand();
  renderActions();
  renderChoices();
  const auto = S.table && S.seat !== null && S.table.seats[S.seat]?.auto;
  $("auto-banner").hidden = !auto;
}

function renderPlayers() {
  const view = S.view;
  const list = $("players");
  const order = [];
  const n = view.hand_counts.length;
  // Me last... no: the others in seat order starting after me, then me, as around a table.
  const start = S.seat === null ? 0 : S.seat + 1;
  for (let i = 0; i < n; i += 1) order.push((start + i) % n);
  const items = order.map((index) => {
    const seat = seats()[index] || {};
    const out = view.finished.indexOf(index);
    const passed = view.passed.includes(index);
    const turn = view.turn === index && (view.phase === "play" || view.phase === "exchange");
    const title = view.titles[String(index)];
    const classes = ["player"];
    if (turn) classes.push("is-turn");
    if (passed) classes.push("is-passed");
    if (out >= 0) classes.push("is-out");
    if (index === S.seat) classes.push("is-me");
    let state = "";
    if (out >= 0) state = t("Out: place %(place)s", { place: out + 1 });
    else if (passed) state = t("Passed");
    else if (turn) state = index === S.seat ? t("Your turn") : t("Playing…");
    const extra = [];
    if (seat.kind === "bot") extra.push(levelName(seat.level));
    if (seat.kind === "human" && !seat.connected) extra.push(t("offline"));
    if (seat.auto) extra.push(t("the computer plays"));
    return el(
      "li",
      { class: classes.join(" "), "data-seat": String(index) },
      el(
        "div",
        { class: "player-head" },
        turn ? el("span", { class: "turn-mark", "aria-hidden": "true", text: "▶" }) : null,
        el("span", { class: "player-name", text: index === S.seat ? t("You") : seatName(index) }),
        title ? el("span", { class: `title-badge title-${title}`, text: config.titles[title] }) : null,
      ),
      el(
        "div",
        { class: "player-meta" },
        el("span", {
          class: "player-count",
          text: tn("%(num)s card", "%(num)s cards", view.hand_counts[index]),
        }),
        el("span", { text: tn("%(num)s point", "%(num)s points", view.points[index]) }),
        extra.length ? el("span", { text: extra.join(", ") }) : null,
      ),
      state || turn
        ? el(
            "div",
            { class: "player-state" },
            state,
            turn && S.timer && S.timer.seat === index
              ? el("span", { class: "timer", role: "timer", "data-timer": "1" })
              : null,
          )
        : null,
    );
  });
  list.replaceChildren(...items);
}

const TRICK_SHOWN = 4;

function renderTrick() {
  const view = S.view;
  const box = $("trick-plays");
  const items = [];
  // newest first: the play to beat is on top
  const entries = view.trick.map((entry, index) => ({ entry, index })).reverse();
  const top = entries.find(({ entry }) => entry.action === "play");
  for (const { entry, index } of entries.slice(0, TRICK_SHOWN)) {
    const who = entry.seat === S.seat ? t("You") : seatName(entry.seat);
    if (entry.action === "pass") {
      items.push(
        el("li", { class: "trick-pass" }, el("span", { class: "trick-who", text: who }), " ", t("passed")),
      );
      continue;
    }
    const words = playWords(entry, reversedOrder());
    items.push(
      el(
        "li",
        { class: top && top.index === index ? "trick-play is-top" : "trick-play" },
        el("span", { class: "trick-who", text: who }),
        cardRow(entry.cards, reversedOrder(), words),
      ),
    );
  }
  const hidden = entries.length - TRICK_SHOWN;
  if (hidden > 0) {
    items.push(
      el("li", {
        class: "trick-more",
        text: tn("and %(num)s earlier move", "and %(num)s earlier moves", hidden),
      }),
    );
  }
  if (!items.length) {
    let text = "";
    if (view.phase === "play" && view.turn !== null) {
      text =
        view.turn === S.seat
          ? t("The table is empty: you lead.")
          : t("The table is empty: %(name)s leads.", { name: seatName(view.turn) });
    }
    if (view.phase === "exchange") text = t("The card exchange comes first.");
    items.push(el("li", { class: "trick-empty", text }));
  }
  box.replaceChildren(...items);
}

function renderExchange() {
  const view = S.view;
  const box = $("exchange");
  const lines = [];
  for (const entry of view.exchange) {
    if (entry.giver === S.seat) {
      lines.push([
        entry.automatic
          ? t("You gave your highest cards to %(name)s:", { name: seatName(entry.receiver) })
          : t("You gave back to %(name)s:", { name: seatName(entry.receiver) }),
        entry.cards,
      ]);
    } else if (entry.receiver === S.seat) {
      lines.push([
        entry.automatic
          ? t("%(name)s gave you their highest cards:", { name: seatName(entry.giver) })
          : t("%(name)s gave back to you:", { name: seatName(entry.giver) }),
        entry.cards,
      ]);
    }
  }
  const show = lines.length > 0 && (view.phase === "exchange" || view.phase === "play");
  box.hidden = !show;
  if (!show) return;
  $("exchange-lines").replaceChildren(
    ...lines.map(([text, cards]) =>
      el("li", {}, el("span", { text }), " ", cardRow(cards, false, cardsShort(cards))),
    ),
  );
}

// The player's name with their title under it.
function playerCell(seat, title, place = null) {
  const name = seat === S.seat ? t("You") : seatName(seat);
  return el(
    "th",
    { scope: "row" },
    el(
      "span",
      { class: "result-player" },
      el("span", {
        class: "result-name",
        text: place === null ? name : `${place}. ${name}`,
      }),
      title ? el("span", { class: `title-badge title-${title}`, text: config.titles[title] }) : null,
    ),
  );
}

// A round's results: the place goes with the name, so that the table fits a phone.
function resultRows(places, titles, roundPoints, totals) {
  return places.map((seat, place) =>
    el(
      "tr",
      { class: seat === S.seat ? "is-me" : null },
      playerCell(seat, titles[String(seat)], place + 1),
      el("td", { text: String(roundPoints[seat]) }),
      el("td", { text: String(totals[seat]) }),
    ),
  );
}

function roundData() {
  const view = S.view;
  if (S.lastRound) return S.lastRound;
  if (!view || !view.places.length) return null;
  const places = view.places[view.places.length - 1];
  const n = places.length;
  const roundPoints = new Array(n).fill(0);
  places.forEach((seat, index) => {
    roundPoints[seat] = n - index;
  });
  return {
    round: view.places.length,
    places,
    titles: view.titles,
    round_points: roundPoints,
    points: view.points,
  };
}

function renderRoundResults() {
  const view = S.view;
  const box = $("round-results");
  // shown from the end of a round until the next one's first play
  const show =
    view.phase === "round_over" ||
    (view.round > 1 && (view.phase === "exchange" || view.history.length === 0));
  box.hidden = !show;
  if (!show) return;
  const data = roundData();
  if (!data) return;
  $("round-results-heading").textContent = t("Results of round %(round)s", { round: data.round });
  $("round-results-body").replaceChildren(
    ...resultRows(data.places, data.titles, data.round_points, data.points),
  );
}

function renderResults() {
  const box = $("results");
  const view = S.view;
  const show = Boolean(view && view.phase === "game_over" && S.seat !== null);
  box.hidden = !show;
  if (!show) return;
  const data = roundData();
  const totals = view.points;
  const standing = S.lastGame
    ? S.lastGame.standings
    : totals.map((mine) => totals.filter((other) => other > mine).length);
  const order = totals.map((_, seat) => seat).sort((a, b) => standing[a] - standing[b] || a - b);
  const rows = order.map((seat) =>
    el(
      "tr",
      { class: seat === S.seat ? "is-me" : null },
      el("td", { text: String(standing[seat] + 1) }),
      playerCell(seat, data ? data.titles[String(seat)] : null),
      el("td", { text: String(totals[seat]) }),
    ),
  );
  $("final-body").replaceChildren(...rows);
  const winners = order.filter((seat) => standing[seat] === 0);
  $("winner").textContent = winners.includes(S.seat)
    ? winners.length > 1
      ? t("You share first place!")
      : t("You win!")
    : t("Winner: %(names)s", { names: winners.map(seatName).join(", ") });
  const host = isHost();
  $("rematch-button").hidden = !host || tablePhase() !== "over";
  $("rematch-wait").hidden = host || tablePhase() !== "over";
  const game = S.lastGame ? S.lastGame.game : S.table ? S.table.game : 0;
  const record = $("record-link");
  record.hidden = !game || !S.table || !S.table.records.includes(game);
  record.href = `/api/tables/${encodeURIComponent(tableId)}/records/${game}`;
  const roundBox = $("last-round");
  roundBox.hidden = !data || view.rules.rounds < 2;
  if (data) {
    $("last-round-body").replaceChildren(
      ...resultRows(data.places, data.titles, data.round_points, data.points),
    );
  }
}

// -- the hand -----------------------------------------------------------------------------

const handButtons = new Map();

function handButton(code) {
  let button = handButtons.get(code);
  if (button) return button;
  const image = cardImage(code);
  image.setAttribute("aria-hidden", "true");
  image.removeAttribute("role");
  button = el(
    "button",
    {
      type: "button",
      class: "hand-card",
      "data-card": code,
      "aria-pressed": "false",
      "aria-label": cardLabel(code),
      tabindex: "-1",
      onclick: () => {
        focusCard(code);
        toggle(code);
      },
    },
    image,
    el("span", { class: "mark", "aria-hidden": "true" }),
  );
  handButtons.set(code, button);
  return button;
}

let focusedCode = null;

function focusCard(code) {
  focusedCode = code;
  for (const [key, button] of handButtons) button.tabIndex = key === code ? 0 : -1;
  handButtons.get(code)?.focus();
}

function renderHand() {
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
  if (current.join() !== order.join()) hand.replaceChildren(...order.map(handButton));
  const turn = myTurn();
  const playable = turn ? playableCards(legalMoves(), S.selected) : new Set();
  if (!order.includes(focusedCode)) focusedCode = order[0] ?? null;
  for (const code of order) {
    const button = handButton(code);
    const chosen = S.selected.has(code);
    button.setAttribute("aria-pressed", String(chosen));
    button.classList.toggle("is-playable", playable.has(code));
    button.classList.toggle("is-dim", turn && !chosen && !playable.has(code));
    button.setAttribute(
      "aria-describedby",
      turn ? (playable.has(code) ? "can-play" : "cannot-play") : "",
    );
    button.tabIndex = code === focusedCode ? 0 : -1;
  }
  if (hadFocus && !hand.contains(document.activeElement) && focusedCode) {
    handButtons.get(focusedCode)?.focus();
  }
  $("hand-heading").textContent = tn(
    "Your hand: %(num)s card",
    "Your hand: %(num)s cards",
    view.hand.length,
  );
  $("hand-empty").hidden = view.hand.length > 0;
}

function renderActions() {
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
  $("actions").hidden = out || view.phase === "round_over" || view.phase === "game_over";
  playButton.setAttribute("aria-disabled", String(!turn || S.busy || S.selected.size === 0));
  // what the chosen cards are: a legal move ("ready"), part of one, or neither
  let selection = "none";
  if (S.selected.size) {
    if (exactMoves(legalMoves(), S.selected).length) selection = "ready";
    else selection = playableCards(legalMoves(), S.selected).size ? "partial" : "invalid";
  }
  app.dataset.selection = selection;
  const passButton = $("pass-button");
  passButton.hidden = exchange || Boolean(owed);
  passButton.setAttribute("aria-disabled", String(!canPass || S.busy));
  $("clear-button").hidden = S.selected.size === 0;
  $("hand-keys").hidden = $("actions").hidden;
  if (!turn && !S.selected.size) showNote("");
}

function renderChoices() {
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
          onclick: () => playMove(move),
        }),
      ),
    ),
  );
}

function renderTimer() {
  const timer = S.timer;
  const left = timer ? Math.max(0, Math.ceil((timer.deadline - performance.now()) / 1000)) : null;
  for (const node of document.querySelectorAll("[data-timer]")) {
    const minutes = Math.floor(left / 60);
    const seconds = String(left % 60).padStart(2, "0");
    node.textContent = `${minutes}:${seconds}`;
    node.setAttribute("aria-label", tn("%(num)s second left", "%(num)s seconds left", left));
    node.classList.toggle("is-urgent", left <= 10);
  }
  if (timer && timer.seat === S.seat && left !== null && left <= 10 && !S.warnedSeconds && myTurn()) {
    S.warnedSeconds = true;
    announce(tn("%(num)s second left.", "%(num)s seconds left.", left), true);
  }
}

// -------------------------------------------------------------------------- the controls

function moveFocus(step, toEnd = false) {
  const order = [...$("hand").children].map((b) => b.dataset.card);
  if (!order.length) return;
  let index = order.indexOf(focusedCode);
  if (toEnd) index = step < 0 ? 0 : order.length - 1;
  else index = Math.max(0, Math.min(order.length - 1, (index < 0 ? 0 : index) + step));
  focusCard(order[index]);
}

function onHandKey(event) {
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
      toggle(button.dataset.card);
      break;
    case "Enter":
      play();
      break;
    default:
      return;
  }
  event.preventDefault();
}

function onPageKey(event) {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (target.closest("input, select, textarea, dialog")) return;
  if (!S.view || $("game").hidden) return;
  const key = event.key.toLowerCase();
  if (key === "p") {
    event.preventDefault();
    pass();
  } else if (key === "h") {
    event.preventDefault();
    moveFocus(0);
  } else if (key === "escape" && S.selected.size) {
    S.selected.clear();
    S.choices = null;
    render();
    updateNote();
  }
}

function joinTable(event) {
  event.preventDefault();
  const input = $("sit-name");
  const name = input.value.trim();
  if (!name) {
    $("sit-error").textContent = t("Type your name first.");
    input.setAttribute("aria-invalid", "true");
    input.focus();
    return;
  }
  input.removeAttribute("aria-invalid");
  $("sit-error").textContent = "";
  connection.sendRaw({ type: "join", name });
}

async function copyLink() {
  const input = $("share-link");
  const url = input.value;
  let done = false;
  try {
    await navigator.clipboard.writeText(url);
    done = true;
  } catch {
    input.select();
    try {
      done = document.execCommand("copy");
    } catch {
      done = false;
    }
  }
  const text = done ? t("Link copied. Send it to your friends.") : t("Select the link and copy it.");
  $("share-status").textContent = text;
  if (!done) input.select();
}

async function shareLink() {
  try {
    await navigator.share({ title: document.title, url: $("share-link").value });
  } catch {
    // the person closed the share sheet
  }
}

async function openRules() {
  const dialog = $("rules-dialog");
  const rules = S.view ? S.view.rules : S.table ? S.table.rules : null;
  const body = $("rules-body");
  if (rules) {
    const query = rulesQuery(rules);
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

function setUp() {
  const share = `${location.origin}/t/${tableId}`;
  $("share-link").value = share;
  $("copy-button").addEventListener("click", copyLink);
  if (navigator.share) {
    $("share-button").hidden = false;
    $("share-button").addEventListener("click", shareLink);
  }
  $("sit-form").addEventListener("submit", joinTable);
  $("hand").addEventListener("keydown", onHandKey);
  document.addEventListener("keydown", onPageKey);
  $("play-button").addEventListener("click", play);
  $("pass-button").addEventListener("click", pass);
  $("clear-button").addEventListener("click", () => {
    S.selected.clear();
    S.choices = null;
    render();
    updateNote();
    moveFocus(0);
  });
  $("choice-cancel").addEventListener("click", () => {
    S.choices = null;
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
  $("back-button").addEventListener("click", () => send("back"));
  $("rules-button").addEventListener("click", openRules);
  $("rules-close").addEventListener("click", () => $("rules-dialog").close());
  $("rules-dialog").addEventListener("close", () => $("rules-button").focus());
  setInterval(renderTimer, 500);
  if (!storedSeat(tableId)) $("sit-name").value = localStorage.getItem("cardverse.name") || "";
  $("sit-name").addEventListener("change", (e) => {
    try {
      localStorage.setItem("cardverse.name", e.target.value.trim());
    } catch {
      // no storage
    }
  });
}

function showLobbyNote(text) {
  $("lobby-note").textContent = text;
}

const connection = new TableConnection(tableId, { onStatus, onMessage });
// For the browser tests and the curious: drop the connection as a network failure would, or
// show a message as if the server had sent it.
window.cardverseTable = {
  drop: () => connection.drop(),
  receive: (message) => onMessage(message),
  state: S,
};
setUp();
render();
connection.connect();
