// The table's WebSocket (docs/protocol.md): connecting, coming back after a drop, the seat
// token kept in localStorage, and numbered messages (seq) that may safely be sent again.

const SEAT_KEY = "cardverse.seat.";
const RETRY_MS = [300, 800, 1500, 3000, 5000];
const PING_EVERY_MS = 20000;
const SILENCE_MS = 50000; // nothing heard for this long: the connection is taken as dead

export function storedSeat(tableId) {
  try {
    const value = JSON.parse(localStorage.getItem(SEAT_KEY + tableId) || "null");
    return value && typeof value.token === "string" ? value : null;
  } catch {
    return null;
  }
}

export function storeSeat(tableId, seat, token) {
  try {
    localStorage.setItem(SEAT_KEY + tableId, JSON.stringify({ seat, token }));
  } catch {
    // private browsing without storage: the seat lasts as long as the tab
  }
}

export function forgetSeat(tableId) {
  try {
    localStorage.removeItem(SEAT_KEY + tableId);
  } catch {
    // nothing to forget
  }
}

export class TableConnection {
  // handlers: onStatus(status), onMessage(message); status is "connecting", "open",
  // "reconnecting", "replaced" or "missing".
  constructor(tableId, handlers) {
    this.tableId = tableId;
    this.handlers = handlers;
    this.socket = null;
    this.attempt = 0;
    this.stopped = false;
    this.retryTimer = null;
    this.pingTimer = null;
    this.lastHeard = Date.now();
    this.nextSeq = 1;
    this.pending = null; // the last numbered message not yet answered: {seq, message}
    this.everOpen = false;
    window.addEventListener("online", () => this.reconnectNow());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.check();
    });
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/ws/${encodeURIComponent(this.tableId)}`;
  }

  connect() {
    if (this.stopped) return;
    clearTimeout(this.retryTimer);
    this.handlers.onStatus(this.everOpen ? "reconnecting" : "connecting");
    let socket;
    try {
      socket = new WebSocket(this.url());
    } catch {
      this.scheduleRetry();
      return;
    }
    this.socket = socket;
    socket.addEventListener("open", () => {
      if (socket !== this.socket) return;
      this.attempt = 0;
      this.everOpen = true;
      this.lastHeard = Date.now();
      this.startPing();
      const seat = storedSeat(this.tableId);
      if (seat) this.sendRaw({ type: "join", token: seat.token });
      this.handlers.onStatus("open");
    });
    socket.addEventListener("message", (event) => {
      if (socket !== this.socket) return;
      this.lastHeard = Date.now();
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      this.track(message);
      this.handlers.onMessage(message);
    });
    socket.addEventListener("close", (event) => {
      if (socket !== this.socket) return;
      this.socket = null;
      this.stopPing();
      if (event.code === 4001) {
        this.stopped = true;
        this.handlers.onStatus("replaced");
      } else if (event.code === 4004) {
        this.stopped = true;
        this.handlers.onStatus("missing");
      } else {
        this.scheduleRetry();
      }
    });
  }

  track(message) {
    if (message.type === "welcome") {
      this.nextSeq = Math.max(this.nextSeq, message.last_seq + 1);
      const pending = this.pending;
      if (pending && pending.seq > message.last_seq) {
        this.sendRaw(pending.message); // it may not have got through: send it again, same seq
      } else {
        this.pending = null;
      }
    } else if ((message.type === "ack" || message.type === "error") && this.pending) {
      if (message.seq === this.pending.seq) this.pending = null;
    }
  }

  scheduleRetry() {
    if (this.stopped) return;
    this.handlers.onStatus(this.everOpen ? "reconnecting" : "connecting");
    const delay = RETRY_MS[Math.min(this.attempt, RETRY_MS.length - 1)];
    this.attempt += 1;
    this.retryTimer = setTimeout(() => this.connect(), delay * (0.8 + Math.random() * 0.4));
  }

  reconnectNow() {
    if (this.stopped || (this.socket && this.socket.readyState === WebSocket.OPEN)) return;
    this.attempt = 0;
    this.connect();
  }

  // Take the seat back after another tab took it (close code 4001).
  resume() {
    this.stopped = false;
    this.attempt = 0;
    this.connect();
  }

  startPing() {
    this.stopPing();
    this.pingTimer = setInterval(() => this.check(), PING_EVERY_MS);
  }

  stopPing() {
    clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  check() {
    const socket = this.socket;
    if (!socket) {
      this.reconnectNow();
      return;
    }
    if (Date.now() - this.lastHeard > SILENCE_MS) {
      this.drop();
      return;
    }
    if (socket.readyState === WebSocket.OPEN) this.sendRaw({ type: "ping" });
  }

  // Lose the connection as a network failure would (also used by the browser tests).
  drop() {
    const socket = this.socket;
    if (!socket) return;
    this.socket = null;
    this.stopPing();
    try {
      socket.close();
    } catch {
      // already closed
    }
    this.scheduleRetry();
  }

  get open() {
    return Boolean(this.socket && this.socket.readyState === WebSocket.OPEN);
  }

  sendRaw(message) {
    if (!this.open) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  // A numbered message (play, pass, give, options, ...): kept until the server answers it.
  send(type, fields = {}) {
    const message = { type, seq: this.nextSeq, ...fields };
    this.nextSeq += 1;
    this.pending = { seq: message.seq, message };
    this.sendRaw(message);
    return message.seq;
  }
}
