// Turn signals you cannot miss: when it becomes my turn the tab title and the favicon change,
// a short sound plays (made in the page with the Web Audio API; a switch turns it off, and the
// choice is remembered), and a phone that allows it vibrates.
import { t } from "./i18n.js";

const SOUND_KEY = "cardverse.sound";
const TURN_ICON = "/static/img/your-turn.svg";

let baseTitle = null;
let baseIcon = null;
let audio = null;

export function soundOn() {
  try {
    return localStorage.getItem(SOUND_KEY) !== "off";
  } catch {
    return true;
  }
}

export function setSound(on) {
  try {
    localStorage.setItem(SOUND_KEY, on ? "on" : "off");
  } catch {
    // no storage: the choice lasts as long as the tab
  }
}

// The audio context may only start after a person's gesture: made on the first one.
export function unlockAudio() {
  if (audio || !window.AudioContext) return;
  try {
    audio = new AudioContext();
  } catch {
    audio = null;
  }
}

function beep() {
  if (!audio || !soundOn()) return;
  if (audio.state === "suspended") audio.resume();
  const now = audio.currentTime;
  for (const [offset, frequency] of [
    [0, 660],
    [0.12, 880],
  ]) {
    const tone = audio.createOscillator();
    const volume = audio.createGain();
    tone.type = "sine";
    tone.frequency.value = frequency;
    volume.gain.setValueAtTime(0.0001, now + offset);
    volume.gain.exponentialRampToValueAtTime(0.2, now + offset + 0.02);
    volume.gain.exponentialRampToValueAtTime(0.0001, now + offset + 0.18);
    tone.connect(volume).connect(audio.destination);
    tone.start(now + offset);
    tone.stop(now + offset + 0.2);
  }
}

function icon() {
  return document.querySelector("link[rel~='icon']");
}

// The tab's title and icon say whether it is my turn.
export function showTurn(mine) {
  if (baseTitle === null) {
    baseTitle = document.title;
    baseIcon = icon() ? icon().getAttribute("href") : null;
  }
  const title = mine ? `${t("Your turn")} · ${baseTitle}` : baseTitle;
  if (document.title !== title) document.title = title;
  const link = icon();
  const href = mine ? TURN_ICON : baseIcon;
  if (link && href && link.getAttribute("href") !== href) link.setAttribute("href", href);
}

// It has just become my turn.
export function turnStarted() {
  beep();
  if (navigator.vibrate) {
    try {
      navigator.vibrate(180);
    } catch {
      // not allowed here
    }
  }
}
