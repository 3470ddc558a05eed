// Small improvements on every page. The join form also works without JavaScript.
import { t } from "./i18n.js";

const SEAT_KEY = "cardverse.seat.";

function showError(form, input, text) {
  let error = form.querySelector(".error");
  if (!error) {
    error = document.createElement("p");
    error.className = "error";
    error.id = `${form.id}-error`;
    error.setAttribute("role", "alert");
    form.querySelector("button[type=submit]").insertAdjacentElement("beforebegin", error);
  }
  error.textContent = text;
  if (input) {
    input.setAttribute("aria-invalid", "true");
    input.focus();
  }
}

async function errorText(code, params) {
  const query = new URLSearchParams({ code, params: JSON.stringify(params || {}) });
  try {
    const response = await fetch(`/i18n/error?${query}`);
    return (await response.json()).text;
  } catch {
    return t("The server cannot be reached. Try again in a moment.");
  }
}

function enhanceCreateForm() {
  const form = document.getElementById("create-form");
  if (!form) return;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = form.elements.name;
    if (name.value.trim() === "") {
      showError(form, name, t("Type your name first."));
      return;
    }
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    const body = {
      name: name.value.trim(),
      rules: { preset: form.elements.preset.value, players: Number(form.elements.players.value) },
    };
    try {
      const response = await fetch(form.action, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      const data = await response.json();
      if (!response.ok) {
        showError(form, null, await errorText(data.code, data.params));
        return;
      }
      localStorage.setItem(SEAT_KEY + data.table_id, JSON.stringify({ seat: data.seat, token: data.token }));
      window.location.assign(data.url);
    } catch {
      showError(form, null, t("The server cannot be reached. Try again in a moment."));
    } finally {
      button.disabled = false;
    }
  });
}

function checkJoinForm() {
  const form = document.getElementById("join-form");
  if (!form) return;
  const input = form.elements.code;
  form.addEventListener("submit", (event) => {
    if (input.value.trim() !== "") return;
    event.preventDefault();
    showError(form, input, t("Paste a table link or type its code first."));
  });
}

enhanceCreateForm();
checkJoinForm();
