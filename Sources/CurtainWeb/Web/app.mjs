// curtain-web's page: the live stream (Server-Sent Events from /events) or a replay
// (?replay=URL), drawn by painter.mjs; a status strip in curtaind's words. Every string from
// the server, a scene or a replay reaches the page through textContent or canvas text only.
import { Painter, SpriteStore } from "./painter.mjs";
import { parseReplay, statusWords } from "./overlay.mjs";

const query = new URLSearchParams(location.search);
const canvas = document.getElementById("overlay");
const context = canvas.getContext("2d");
const text = (id, value) => { document.getElementById(id).textContent = value; };
if (query.get("bare") === "1") document.body.classList.add("bare");

const state = { painter: null, values: null, launches: new Map(), current: null, daemon: null, frames: 0, drawn: 0, error: null };
window.curtain = state;   // read by tests and by whoever debugs the page

let size = null;   // [width, height] the frames are computed for
async function defaults() {
  const d = await (await fetch("/scene")).json();
  const w = Number(query.get("width")) || d.width, h = Number(query.get("height")) || d.height;
  size = [w, h];
  canvas.width = w;
  canvas.height = h;
  return d;
}

// A scene URL (/scenes/N/) loaded at the frame size with its images decoded.
const scenes = new Map();
async function loadScene(url, textVariant) {
  const key = url;
  if (!scenes.has(key)) {
    scenes.set(key, (async () => {
      const response = await fetch(`${url}scene.json?width=${size[0]}&height=${size[1]}`);
      if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
      const scene = await response.json();
      const images = new Map();
      const walk = async (layers) => {
        for (const l of layers) {
          if (l.contents && !images.has(l.contents)) {
            const image = new Image();
            image.src = l.contents;
            await image.decode();
            images.set(l.contents, image);
          }
          await walk(l.sublayers ?? []);
        }
      };
      await walk(scene.layers);
      return { scene, images };
    })());
  }
  const { scene, images } = await scenes.get(key);
  return new Painter(scene, images, textVariant ?? 0, sprites);
}

// Contents sprites (text and images, painter.mjs): a frame is drawn at once with what is at hand; the sprites it
// lacked are fetched (a few at a time: a moving text wants a new one each frame) and the
// frame is drawn again when one arrives.
const sprites = new SpriteStore();
const SPRITES_IN_FLIGHT = 2;
let inFlight = 0;
function draw() {
  state.painter.render(context, state.values);
  state.drawn++;
  for (const url of state.painter.missing) {
    if (inFlight >= SPRITES_IN_FLIGHT) break;
    if (sprites.loading.has(url)) continue;
    inFlight++;
    sprites.load(url).then(() => { inFlight--; schedule(); });
  }
}

// A frame drawn with all its sprites (a held replay frame: the offline renderer's pixels).
async function drawComplete() {
  for (let round = 0; round < 4; round++) {
    state.painter.render(context, state.values);
    state.drawn++;
    if (state.painter.missing.size === 0) return;
    await Promise.all([...state.painter.missing].map((url) => sprites.load(url)));
  }
}

let pending = false;
function schedule() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => {
    pending = false;
    if (state.painter && state.values) draw();
  });
}

function showStatus() {
  const l = state.current ? state.launches.get(state.current) : null;
  if (!l) return;
  const words = statusWords(l);
  text("launch", `launch ${l.id}`);
  text("state", words.state);
  text("destination", words.destination);
  text("progress", words.progress);
  document.body.dataset.state = words.state;
}

function noteLaunch(info) {
  const l = state.launches.get(info.id) ?? { id: info.id };
  Object.assign(l, info);
  state.launches.set(info.id, l);
  return l;
}

async function live() {
  await defaults();
  const source = new EventSource("/events");
  source.addEventListener("daemon", (m) => {
    const d = JSON.parse(m.data);
    state.daemon = d;
    text("daemon", d.connected ? "curtaind: watching" : `curtaind: ${d.reason}`);
    document.getElementById("daemon").className = d.connected ? "" : "down";
  });
  source.addEventListener("launch", async (m) => {
    const info = JSON.parse(m.data);
    const l = noteLaunch(info);
    state.current = info.id;
    showStatus();
    if (info.scene) {
      try { const p = await loadScene(info.scene, info.text_variant); if (state.current === info.id) { state.painter = p; schedule(); } }
      catch (error) { state.error = String(error); text("note", state.error); }
    } else if (info.scene_error) { text("note", info.scene_error); }
    void l;
  });
  source.addEventListener("event", (m) => {
    const e = JSON.parse(m.data);
    const l = noteLaunch({ id: e.launch });
    if (e.kind === "state") l.state = e.to;
    if (e.kind === "destination") l.destination = e.destination;
    if (state.current === e.launch) showStatus();
  });
  source.addEventListener("frame", (m) => {
    const e = JSON.parse(m.data);
    const l = noteLaunch({ id: e.launch });
    l.progress = e.progress; l.transition = e.transition;
    state.frames++;
    if (state.current !== e.launch) return;
    state.values = e.values;
    showStatus();
    schedule();
  });
  source.onerror = () => { text("daemon", "curtain-web: reconnecting"); document.getElementById("daemon").className = "down"; };
}

// A replay: frames at their recorded times (from the first event), or one frame held with
// &frame=N (N counts frames from 0), or paused with &paused=1 and stepped from the console.
async function replay(url) {
  const d = await defaults();
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  const recording = parseReplay(await response.text());
  const frames = recording.events.filter((e) => e.kind === "frame");
  const launch = noteLaunch({ id: recording.launch ?? 0, state: "-" });
  state.current = launch.id;
  text("daemon", `replay: ${url}`);
  state.painter = await loadScene(query.get("scene") ?? d.scene, Number(query.get("variant") ?? 0));
  state.replay = { recording, frames };
  const apply = (upTo) => {
    // Status from every event up to this one (state words, destination), the frame's values.
    for (const e of recording.events) {
      if (e.time > upTo.time) break;
      if (e.kind === "state") launch.state = e.to;
      if (e.kind === "destination") launch.destination = e.destination;
    }
    launch.progress = upTo.progress; launch.transition = upTo.transition;
    state.values = upTo.values;
    showStatus();
  };
  state.showFrame = async (n) => { apply(frames[Math.min(Math.max(n | 0, 0), frames.length - 1)]); await drawComplete(); };
  if (query.has("frame")) { await state.showFrame(Number(query.get("frame"))); state.ready = true; return; }
  const start = performance.now();
  let i = 0;
  const tick = () => {
    const t = (performance.now() - start) / 1000 + recording.origin;
    while (i < frames.length - 1 && frames[i + 1].time <= t) i++;
    apply(frames[i]);
    if (i < frames.length - 1) { draw(); requestAnimationFrame(tick); return; }
    for (const e of recording.events) if (e.kind === "state") launch.state = e.to;
    showStatus();
    drawComplete().then(() => { state.ready = true; });
  };
  requestAnimationFrame(tick);
}

(query.has("replay") ? replay(query.get("replay")) : live()).catch((error) => {
  state.error = String(error);
  text("note", state.error);
});
