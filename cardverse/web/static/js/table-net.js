// The table's WebSocket (docs/protocol.md): connecting, coming back after a drop, the seat
// token kept in localStorage, numbered messages (seq) that may safely be sent again, the
// heartbeat that finds a dead connection within 5 s (cardverse/tabletalk/heartbeat.py), and the
// offset of the server's clock, measured on connecting, for the turn deadline. A move's ack may
// come inside the `change` (or `state`) it made, as `ack`.

const SEAT_KEY = "cardverse.seat.";
const RETRY_MS = [300, 800, 1500, 3000, 5000];
// The clock offset: a round trip this short measures it well enough; pinged again at once (up
// to this many samples on a connection) while the best is longer.
const GOOD_RTT_MS = 200;
const QUICK_PINGS = 5;
// The heartbeat's timing comes from the page (cardverse/tabletalk/heartbeat.py); these are its
// usual values: a ping every 2 s, dead after 4 s of silence, checked every second.
let TICK_MS = 1000;
let PING_EVERY_MS = 2000;
let SILENCE_MS = 4000;

export function setHeartbeat(settings) {
  if (!settings) return;
  TICK_MS = settings.tickMs || TICK_MS;
  PING_EVERY_MS = settings.pingMs || PING_EVERY_MS;
  SILENCE_MS = settings.silenceMs || SILENCE_MS;
}

export function storedSeat(tableId) {
  try {
    const value = JSON.parse(localStorage.getItem(SEAT_KEY + tableId) || "null");
    return value && typeof value.token === "string" ? value : null;
  } catch {
    return null;
  }
}

// `left`: the person left the seat during a game; the token can take it back (not on its own).
export function storeSeat(tableId, seat, token, left = false) {
  try {
    localStorage.setItem(SEAT_KEY + tableId, JSON.stringify({ seat, token, left }));
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
    this.lastTick = Date.now();
    this.lastPing = 0;
    this.pingSent = null; // when the unanswered ping left (ms, Date.now())
    this.offset = 0; // the server's clock minus this one's (ms)
    this.offsetRtt = Infinity; // the round trip of the best measurement on this connection
    this.samples = 0; // pongs measured on this connection
    this.lastSample = null; // when the last one came (ms, Date.now())
    this.nextSeq = 1;
    this.pending = null; // the last numbered message not yet answered: {seq, message}
    this.queued = null; // a message waiting for the connection to open
    this.everOpen = false;
    this.rejoining = false; // the stored token was sent on this connection; no welcome yet
    window.addEventListener("online", () => this.reconnectNow());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.check();
    });
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const path = this.watch ? "ws/watch" : "ws"; // a watch link's connection only watches
    return `${scheme}//${location.host}/${path}/${encodeURIComponent(this.tableId)}`;
  }

  connect() {
    if (this.stopped) return;
    clearTimeout(this.retryTimer);
    this.handlers.onStatus(this.everOpen ? "reconnecting" : "connecting");
    this.lastHeard = Date.now();
    this.offsetRtt = Infinity;
    this.pingSent = null; // a ping of the last connection: its answer never comes (no sample
    // spans two connections, nor the stall between them)
    this.samples = 0;
    this.startPing();
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
      this.ping(); // the first round trip measures the clock offset
      const seat = storedSeat(this.tableId);
      this.rejoining = Boolean(seat && !seat.left);
      if (this.rejoining) this.sendRaw({ type: "join", token: seat.token });
      else if (this.queued) this.sendRaw(this.queued); // asked for before the connection was open
      this.queued = null;
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
      this.measure(message);
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
    if (message.type === "welcome" || message.type === "error") this.rejoining = false;
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
    } else if ((message.type === "change" || message.type === "state") && this.pending) {
      if (message.ack === this.pending.seq) this.pending = null; // a move's ack comes with its change
    }
  }

  // The server's clock: from `hello` (one way), then from each pong. A pong's sample is the
  // server's time at the middle of the round trip, right within half of it: the sample of the
  // shortest round trip wins, unless a newer one cannot be right at the same time as it (their
  // ranges miss each other): then a clock moved meanwhile (this page's jumped, as after a
  // sleep) and the newer one is the truth. While the best round trip is long (the first ping
  // of a connection may take a stall or a jump of the clock), pings go again at once.
  measure(message) {
    const now = Date.now();
    if (message.type === "hello" && typeof message.server_time === "number" && this.offsetRtt === Infinity) {
      this.offset = message.server_time - now;
      this.offsetRtt = 1e9;
    } else if (message.type === "pong" && typeof message.server_time === "number" && this.pingSent !== null) {
      const rtt = now - this.pingSent;
      this.pingSent = null;
      this.samples += 1;
      this.lastSample = now;
      const offset = message.server_time - (now - rtt / 2);
      const moved = Math.abs(offset - this.offset) > (rtt + this.offsetRtt) / 2 + 2; // (ms rounding)
      if (rtt <= this.offsetRtt || moved) {
        this.offset = offset;
        this.offsetRtt = rtt;
      }
      if (this.offsetRtt > GOOD_RTT_MS && this.samples < QUICK_PINGS) this.ping();
    }
  }

  serverNow() {
    return Date.now() + this.offset;
  }

  ping() {
    this.lastPing = Date.now();
    if (this.sendRaw({ type: "ping" }) && this.pingSent === null) this.pingSent = this.lastPing;
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
    this.lastTick = Date.now();
    this.pingTimer = setInterval(() => this.check(), TICK_MS);
  }

  stopPing() {
    clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  check() {
    const socket = this.socket;
    const now = Date.now();
    const late = now - this.lastTick > TICK_MS * 3; // the tab slept (timers were held back)
    this.lastTick = now;
    if (!socket) {
      this.reconnectNow();
      return;
    }
    if (late) {
      this.lastHeard = now; // give the connection a fresh chance to answer
      this.pingSent = null;
    } else if (now - this.lastHeard > SILENCE_MS) {
      this.drop();
      return;
    }
    if (socket.readyState === WebSocket.OPEN && now - this.lastPing >= PING_EVERY_MS) {
      if (this.pingSent !== null && now - this.pingSent > SILENCE_MS) this.pingSent = null;
      this.ping();
    }
  }

  // Lose the connection as a network failure would (also used by the browser tests).
  drop() {
    const socket = this.socket;
    if (!socket) return;
    this.socket = null;
    this.pingSent = null;
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

  // An unnumbered message that should go as soon as the connection is open (taking a seat).
  sendSoon(message) {
    if (!this.sendRaw(message)) this.queued = message;
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
