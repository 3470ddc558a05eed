// The lobby (and the seats and options between games): the share link, taking a seat, the
// seats with their computer players, and the options, which the host changes and everyone
// else reads.
import { t, tn } from "./i18n.js";
import { $, el } from "./table-dom.js";
import { lobbySeatControls } from "./table-people.js";
import { S, config, isHost, seatName, seats, tablePhase } from "./table-state.js";

export function levelName(level) {
  return config.levels[level] || level;
}

// Drawn with `io`: {send (a numbered message), sendRaw, render} for its controls.
export function renderLobby(io) {
  const section = $("lobby");
  if (section.hidden || !S.table) return;
  const phase = tablePhase();
  $("lobby-heading").textContent =
    phase === "over" ? t("Seats and options for the next game") : t("Waiting for players");
  $("share").hidden = phase !== "lobby" || config.watch;
  $("watch-link").value = `${location.origin}/w/${S.table.watch_id}`;
  $("watch-share").hidden = Boolean(config.watch);
  $("sit-form").hidden = S.seat !== null || config.watch || !seats().some((s) => s.kind === "empty");
  $("table-full").hidden = S.seat !== null || config.watch || seats().some((s) => s.kind === "empty");
  renderSeats(io);
  renderOptions(io);
  const rules = S.table.rules;
  const preset = config.presets[rules.preset];
  $("options-summary").textContent = tn(
    "Options: %(preset)s, %(num)s round",
    "Options: %(preset)s, %(num)s rounds",
    rules.rounds,
    { preset: preset ? preset.name : rules.preset },
  );
  const host = isHost();
  const emptySeats = seats().filter((s) => s.kind === "empty").length;
  $("host-tools").hidden = !host || emptySeats === 0;
  $("start-button").hidden = !host || phase !== "lobby";
  const empty = seats().filter((s) => s.kind === "empty").length;
  $("start-button").setAttribute("aria-disabled", String(empty > 0 || S.busy));
  $("fill-button").hidden = empty === 0;
}

function renderSeats(io) {
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
          // short, so that the level fits a phone's tile (the name says it is a computer)
          text: t("Level: %(level)s", { level: levelName(seat.level) }),
        }),
      );
    } else if (seat.kind === "human") {
      who = el("span", { class: "seat-who" }, el("span", { class: "seat-name", text: seat.name }));
      if (seat.program) tags.push(el("span", { class: "tag tag-program", text: t("program") }));
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
          text: "×",
          onclick: () => io.send("remove_bot", { seat: index }),
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
          onclick: () => io.send("add_bot", { seat: index, level: $("bot-level").value }),
        }),
      );
    }
    if (tablePhase() !== "playing") buttons.push(...lobbySeatControls(seat, io));
    // the tags go under the name: beside it, with the host's controls, they left a short name
    // too little room and it broke inside a word
    if (tags.length) who.append(el("span", { class: "seat-tags" }, tags));
    return el(
      "li",
      { class: `seat seat-${seat.kind}${index === S.seat ? " seat-mine" : ""}` },
      el("span", { class: "seat-number", text: t("Seat %(number)s", { number: index + 1 }) }),
      who,
      buttons.length ? el("span", { class: "seat-actions" }, buttons) : null,
    );
  });
  list.replaceChildren(...items);
  if (focusSeat !== null && focusSeat !== undefined) {
    const again = list.querySelector(`[data-seat="${focusSeat}"]`);
    (again || $("bot-level")).focus();
  }
}

export function rulesQuery(rules) {
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

export function timerLabel(seconds) {
  if (seconds === null || seconds === undefined) return t("No turn timer");
  return tn("%(num)s second", "%(num)s seconds", seconds);
}

// An options message: a change of the rules, or of one of the table's own fields
// (turn_timer, hints, programs).
function sendOptions(io, fields) {
  io.send("options", fields);
}

// A table field the host turns on or off: its checkbox, label and help line.
function tableSwitch(io, field, label, help) {
  return el(
    "div",
    { class: "option option-bool", "data-option": field },
    el("input", {
      type: "checkbox",
      id: `option-${field}`,
      "aria-describedby": `option-${field}-help`,
      onchange: (event) => sendOptions(io, { [field]: event.target.checked }),
    }),
    el("label", { for: `option-${field}`, text: label }),
    el("p", { class: "hint", id: `option-${field}-help`, text: help }),
  );
}

// Seats for programs (the UECda port, docs/uecda.md section 10): what the host is told.
function programsHelp() {
  const info = S.table.programs || { open: false, port: null, unavailable: "no_port" };
  if (info.unavailable === "no_port") {
    return t("This server has no port for programs (cardverse serve --uecda-port).");
  }
  if (info.unavailable === "players") return t("Programs play at tables of five seats only.");
  if (info.unavailable === "rules") {
    return t("Programs play the uecda preset's rules only (the number of rounds may change).");
  }
  const codeBox = document.getElementById("invite-code");
  const code = codeBox ? codeBox.textContent.trim() : "";
  return t(
    "A program joins with the table code as its name, on port %(port)s: ./client -h %(host)s -p %(port)s -n %(code)s",
    { port: info.port, code, host: location.hostname },
  );
}

// The query of this table's rules sheet: its rules, and whether hints are on.
export function sheetQuery(rules) {
  const query = rulesQuery(rules);
  return S.table ? `${query}&hints=${S.table.hints === false ? 0 : 1}` : query;
}

function buildOptionsForm(io) {
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
          onchange: (event) => sendOptions(io, { rules: { preset: event.target.value } }),
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
        onchange: (event) => sendOptions(io, { rules: { [option.name]: event.target.checked } }),
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
        sendOptions(io, { rules: { [option.name]: value } });
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
      sendOptions(io, { turn_timer: event.target.value === "" ? null : Number(event.target.value) }),
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
  const hintsRow = tableSwitch(
    io,
    "hints",
    t("Hints (the Suggest button)"),
    t("Suggest shows a player the play the normal computer player would make from their own view."),
  );
  // its help line says how a program comes, or why none can (programsHelp)
  const programsRow = tableSwitch(io, "programs", t("Programs may take the empty seats"), "");
  form.replaceChildren(presetBox, ...rows, timerRow, hintsRow, programsRow);
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

function renderOptions(io) {
  const rules = S.table.rules;
  const preset = config.presets[rules.preset];
  const locked = new Set(preset ? preset.locked : []);
  const host = isHost();
  $("options-form").hidden = !host;
  $("options-list").hidden = host;
  $("sheet-link").href = `/rules/sheet?${sheetQuery(rules)}`;
  if (host) {
    if (!optionsBuilt) buildOptionsForm(io);
    // The controls show the table's options as the server last told them; a change the host
    // just made stays shown until the server's answer (a refusal puts the old value back).
    const stamp = JSON.stringify([
      rules,
      S.table.turn_timer,
      S.table.hints,
      S.table.programs,
      S.optionsRefused,
    ]);
    const form = $("options-form");
    if (stamp === form.dataset.shown) return;
    form.dataset.shown = stamp;
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
    $("option-hints").checked = S.table.hints !== false;
    const programs = S.table.programs || { open: false, unavailable: "no_port" };
    $("option-programs").checked = Boolean(programs.open);
    $("option-programs").disabled = Boolean(programs.unavailable) && !programs.open;
    $("option-programs-help").textContent = programsHelp();
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
    el(
      "div",
      {},
      el("dt", { text: t("Hints (the Suggest button)") }),
      el("dd", { text: S.table.hints === false ? t("Off") : t("On") }),
    ),
  );
  $("options-list").replaceChildren(...items);
}


export function joinTable(event, io) {
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
  io.sendRaw({ type: "join", name });
}

export async function copyLink(event) {
  const input = event && event.currentTarget && event.currentTarget.id === "copy-watch-button" ? $("watch-link") : $("share-link");
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

export async function shareLink() {
  try {
    await navigator.share({ title: document.title, url: $("share-link").value });
  } catch {
    // the person closed the share sheet
  }
}


export function showLobbyNote(text) {
  $("lobby-note").textContent = text;
}
