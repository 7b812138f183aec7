// The value → canvas mapping of curtain-web's page: pure functions, no DOM (node --test runs
// them, Tests/WebTests/js). They mirror CurtainCore's LayerPresentation and CurtainRender's
// geometry (docs/scene.md); painter.mjs draws with them.

export const MAXIMUM_COORDINATE = 1e6;   // LayerPresentation.maximumCoordinate
export const MAXIMUM_BLUR_RADIUS = 250;  // LayerPresentation.maximumBlurRadius

const clampCoordinate = (x) => Math.min(Math.max(x, -MAXIMUM_COORDINATE), MAXIMUM_COORDINATE);

// A layer as it shows in one frame: the scene's model values with the frame's
// "layer.property" values on top (a value with a non-finite component is ignored).
export function presentation(layer, values) {
  const key = layer.key ?? layer.id;
  const v = (property, count) => {
    const c = values?.[key + "." + property];
    if (!Array.isArray(c) || (count !== undefined && !count.includes(c.length))) return undefined;
    if (!c.every((x) => typeof x === "number" && Number.isFinite(x))) return undefined;
    return c;
  };
  const p = {
    opacity: layer.opacity ?? 1,
    hidden: !!layer.hidden,
    position: [...layer.position],
    bounds: [...layer.bounds],
    anchorPoint: [...(layer.anchorPoint ?? [0.5, 0.5])],
    transform: { scaleX: 1, scaleY: 1, rotation: 0, translationX: 0, translationY: 0, rotationY: 0, m34: 0 },
    backgroundColor: layer.backgroundColor ?? null,
    cornerRadius: layer.cornerRadius ?? 0,
    blurRadius: 0,
  };
  let c;
  if ((c = v("opacity", [1]))) p.opacity = Math.min(Math.max(c[0], 0), 1);
  if ((c = v("hidden", [1]))) p.hidden = c[0] >= 0.5;
  if ((c = v("position", [2]))) p.position = [clampCoordinate(c[0]), clampCoordinate(c[1])];
  if ((c = v("bounds", [2, 4]))) {
    if (c.length === 4) p.bounds = [clampCoordinate(c[0]), clampCoordinate(c[1]), clampCoordinate(Math.max(c[2], 0)), clampCoordinate(Math.max(c[3], 0))];
    else p.bounds = [p.bounds[0], p.bounds[1], clampCoordinate(Math.max(c[0], 0)), clampCoordinate(Math.max(c[1], 0))];
  }
  if ((c = v("anchorPoint", [2]))) p.anchorPoint = [c[0], c[1]];
  if ((c = v("transform", [5, 7]))) {
    p.transform = { scaleX: c[0], scaleY: c[1], rotation: c[2], translationX: clampCoordinate(c[3]), translationY: clampCoordinate(c[4]),
                    rotationY: c[5] ?? 0, m34: c[6] ?? 0 };
  }
  const t = p.transform;
  if ((c = v("scale", [1]))) { t.scaleX = c[0]; t.scaleY = c[0]; }
  if ((c = v("scaleX", [1]))) t.scaleX = c[0];
  if ((c = v("scaleY", [1]))) t.scaleY = c[0];
  if ((c = v("rotation", [1]))) t.rotation = c[0];
  if ((c = v("translationX", [1]))) t.translationX = clampCoordinate(c[0]);
  if ((c = v("translationY", [1]))) t.translationY = clampCoordinate(c[0]);
  if ((c = v("rotationY", [1]))) t.rotationY = c[0];
  if ((c = v("m34", [1]))) t.m34 = c[0];
  if ((c = v("backgroundColor", [4]))) p.backgroundColor = c;
  if ((c = v("cornerRadius", [1]))) p.cornerRadius = clampCoordinate(Math.max(c[0], 0));
  if ((c = v("blurRadius", [1]))) p.blurRadius = Math.min(Math.max(c[0], 0), MAXIMUM_BLUR_RADIUS);
  p.visible = !p.hidden && p.opacity > 0;
  return p;
}

// Layer space → superlayer space as a canvas matrix [a, b, c, d, e, f]: the anchor point at
// `position`, then scale, rotation (clockwise on screen, y down) and translation about it.
export function geometry(p) {
  const [bx, by, bw, bh] = p.bounds;
  const t = p.transform;
  const sx = t.scaleX === 0 ? 1e-9 : t.scaleX, sy = t.scaleY === 0 ? 1e-9 : t.scaleY;
  const cos = Math.cos(t.rotation), sin = Math.sin(t.rotation);
  const ax = bx + p.anchorPoint[0] * bw, ay = by + p.anchorPoint[1] * bh;
  const a = cos * sx, b = sin * sx, c = -sin * sy, d = cos * sy;
  const e = p.position[0] + t.translationX, f = p.position[1] + t.translationY;
  return [a, b, c, d, e - a * ax - c * ay, f - b * ax - d * ay];
}

// Whether the layer needs the offscreen path (turned in 3-D, or blurred).
export function needsEffects(layer, p) {
  return p.transform.rotationY !== 0 || (p.blurRadius > 0 && layer.role !== "destination");
}

// A colour [r, g, b, a] in 0…1 as CSS (channels to the nearest of 255 steps, as cairo's 8 bits).
export function cssColor(c) {
  const byte = (x) => Math.round(Math.min(Math.max(x, 0), 1) * 255);
  const alpha = Math.min(Math.max(c[3] ?? 1, 0), 1);
  return `rgba(${byte(c[0])}, ${byte(c[1])}, ${byte(c[2])}, ${+alpha.toFixed(4)})`;
}

// A pango font description ("DejaVu Sans Bold Italic") at `size` pixels as a CSS font.
const STYLE_WORDS = { italic: "italic", oblique: "oblique" };
const WEIGHT_WORDS = { thin: 100, ultralight: 200, light: 300, book: 400, regular: 400, normal: 400, medium: 500,
                       semibold: 600, bold: 700, ultrabold: 800, heavy: 900 };
export function cssFont(description, size) {
  const words = String(description).trim().split(/\s+/);
  let weight = 400, style = "normal";
  while (words.length > 1) {
    const w = words[words.length - 1].toLowerCase().replace(/[,-]/g, "");
    if (w in WEIGHT_WORDS) weight = WEIGHT_WORDS[w];
    else if (w in STYLE_WORDS) style = STYLE_WORDS[w];
    else break;
    words.pop();
  }
  // The family is quoted, and quotes or backslashes in it dropped: a scene's font cannot
  // break out of the font shorthand.
  const family = words.join(" ").replace(/[\\"';{}<>]/g, "");
  return `${style} ${weight} ${size}px "${family}", sans-serif`;
}

// Where an image of `w` × `h` sits in bounds [x, y, bw, bh] (CurtainRender's placement).
export function placement(w, h, gravity, bounds) {
  const [bx, by, bwidth, bheight] = bounds;
  let pw = w, ph = h;
  if (gravity === "resize") { pw = bwidth; ph = bheight; }
  else if (gravity === "resizeAspect" || gravity === "resizeAspectFill") {
    const sx = bwidth / w, sy = bheight / h;
    const s = gravity === "resizeAspect" ? Math.min(sx, sy) : Math.max(sx, sy);
    pw = w * s; ph = h * s;
  }
  const name = String(gravity).toLowerCase();
  const x = name.endsWith("left") ? bx : name.endsWith("right") ? bx + bwidth - pw : bx + (bwidth - pw) / 2;
  const y = name.startsWith("top") ? by : name.startsWith("bottom") ? by + bheight - ph : by + (bheight - ph) / 2;
  return [x, y, pw, ph];
}

// Lines of `text` wrapped at `width` (words first, then characters of a word too wide), with
// `measure(string) → width`: pango's WRAP_WORD_CHAR.
export function wrapText(text, width, measure) {
  const lines = [];
  for (const paragraph of String(text).split("\n")) {
    let line = "";
    for (const word of paragraph.split(/(\s+)/)) {
      if (word === "") continue;
      const candidate = line + word;
      if (line === "" || measure(candidate.trimEnd()) <= width) { line = candidate; }
      else { lines.push(line.trimEnd()); line = word.trimStart(); }
      while (line !== "" && measure(line) > width && line.length > 1) {
        let n = line.length - 1;
        while (n > 1 && measure(line.slice(0, n)) > width) n--;
        lines.push(line.slice(0, n));
        line = line.slice(n);
      }
    }
    lines.push(line.trimEnd());
  }
  return lines;
}

// The variant a launch shows (wrapping round, negative numbers too).
export function variant(text, n) {
  const count = text.variants.length;
  return text.variants[(((n | 0) % count) + count) % count];
}

// Replays: a recorded `curtainctl launch --follow --frames --json short` stream, one event a
// line, refused line by line as `curtainctl render --events` refuses it (same limits).
export const REPLAY_LIMITS = { bytes: 16 * 1024 * 1024, lineBytes: 64 * 1024, frames: 10000 };

export function parseReplay(text) {
  if (text.length > REPLAY_LIMITS.bytes) throw new Error(`the replay is more than ${REPLAY_LIMITS.bytes} bytes`);
  const events = [];
  let frames = 0, launch = null;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, "");
    const where = `line ${i + 1}`;
    if (line.trim() === "") continue;
    if (line.length > REPLAY_LIMITS.lineBytes) throw new Error(`${where}: longer than ${REPLAY_LIMITS.lineBytes} bytes`);
    let e;
    try { e = JSON.parse(line); } catch (error) { throw new Error(`${where}: ${error.message}`); }
    if (typeof e !== "object" || e === null || Array.isArray(e)) throw new Error(`${where}: an event is a JSON object`);
    if (typeof e.kind !== "string") throw new Error(`${where}: no "kind" string`);
    if (typeof e.time !== "number" || !Number.isFinite(e.time)) throw new Error(`${where}: no finite "time"`);
    if (e.launch !== undefined) {
      if (!Number.isInteger(e.launch)) throw new Error(`${where}: "launch" is not an integer`);
      if (launch !== null && launch !== e.launch) throw new Error(`${where}: an event of launch ${e.launch} after launch ${launch}: one launch per file`);
      launch = e.launch;
    }
    if (e.kind === "frame") {
      if (++frames > REPLAY_LIMITS.frames) throw new Error(`${where}: more than ${REPLAY_LIMITS.frames} frames`);
      if (typeof e.values !== "object" || e.values === null || Array.isArray(e.values)) throw new Error(`${where}: a frame without a "values" object`);
    }
    events.push(e);
  }
  if (frames === 0) throw new Error("no frames (record with `curtainctl launch … --follow --frames --json short`)");
  return { launch, events, origin: Math.min(...events.map((e) => e.time)) };
}

// The status strip's words for a launch: its state as curtaind names it, its destination,
// and the transition's progress in per cent.
export function statusWords(launch) {
  const d = launch.destination;
  return {
    state: typeof launch.state === "string" ? launch.state : "-",
    destination: d && typeof d === "object" ? `${d.app ?? "?"}/${d.screen ?? "?"}` : "-",
    progress: typeof launch.progress === "number" && Number.isFinite(launch.progress)
      ? `${launch.transition ?? ""} ${Math.round(Math.min(Math.max(launch.progress, 0), 1) * 100)} %`.trim() : "",
  };
}

// Text is CurtainRender's, not the browser's: the server rasterises a text layer with pango
// under the page's device matrix (`/scenes/N/text/K`), so its glyphs land on the pixels
// `curtainctl render` puts them on. The sprite's URL for a text layer: the scene size, the
// variant, the bounds, the device matrix [a, b, c, d, e, f] and the canvas (clip) size, with
// numbers as JavaScript writes them (shortest round-trip form: the server reads the same doubles).
export function spriteURL(base, sceneSize, textVariant, bounds, matrix, clip) {
  const list = (xs) => xs.map((x) => String(x)).join(",");
  return `${base}?width=${sceneSize[0]}&height=${sceneSize[1]}&variant=${textVariant | 0}` +
    `&bounds=${list(bounds)}&matrix=${list(matrix)}&clip=${list(clip)}`;
}

// The sprite's place from its X-Curtain-Sprite header ("x y width height", device pixels);
// null when malformed.
export function spritePlace(header) {
  const n = String(header ?? "").trim().split(/\s+/).map(Number);
  if (n.length !== 4 || !n.every(Number.isInteger) || n[2] <= 0 || n[3] <= 0) return null;
  return { x: n[0], y: n[1], width: n[2], height: n[3] };
}
