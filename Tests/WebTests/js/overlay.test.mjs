// node --test: curtain-web's value → canvas mapping (Sources/CurtainWeb/Web/overlay.mjs),
// against the numbers CurtainCore's LayerPresentation and CurtainRender's geometry give.
import { test } from "node:test";
import assert from "node:assert/strict";
import { presentation, geometry, cssColor, cssFont, placement, wrapText, variant, parseReplay, statusWords, needsEffects, spriteURL, spritePlace } from "../../../Sources/CurtainWeb/Web/overlay.mjs";

const layer = { id: "mask", bounds: [0, 0, 88, 88], position: [187.5, 333.5], anchorPoint: [0.5, 0.5], opacity: 1, hidden: false };
const close = (a, b, eps = 1e-9) => a.forEach((x, i) => assert.ok(Math.abs(x - b[i]) <= eps, `${a} ≉ ${b}`));

test("model values without a frame: the anchor sits at the position", () => {
  const p = presentation(layer, {});
  close(geometry(p), [1, 0, 0, 1, 187.5 - 44, 333.5 - 44]);
  assert.equal(p.visible, true);
});

test("a 7-component transform: scale, rotation (clockwise on screen) and translation about the anchor", () => {
  const p = presentation(layer, { "mask.transform": [2, 3, Math.PI / 2, 10, -5, 0, 0] });
  const [a, b, c, d, e, f] = geometry(p);
  close([a, b, c, d], [0, 2, -3, 0], 1e-12);
  // The anchor (44, 44) lands on position + translation.
  close([a * 44 + c * 44 + e, b * 44 + d * 44 + f], [197.5, 328.5], 1e-9);
  // The layer's right edge midpoint goes down (y grows downwards): clockwise.
  assert.ok(b * 88 + d * 44 + f > 328.5);
});

test("the transform's parts override it; 5 components (no depth) are accepted", () => {
  const p = presentation(layer, { "mask.transform": [2, 2, 0, 0, 0], "mask.scaleX": [4], "mask.translationY": [7] });
  assert.deepEqual([p.transform.scaleX, p.transform.scaleY, p.transform.translationY, p.transform.rotationY], [4, 2, 7, 0]);
  assert.equal(needsEffects(layer, presentation(layer, { "mask.rotationY": [0.3] })), true);
});

test("animatedBy: a layer shows another id's values", () => {
  const p = presentation({ ...layer, id: "hole-logo", key: "logo" }, { "logo.opacity": [0.25], "hole-logo.opacity": [1] });
  assert.equal(p.opacity, 0.25);
});

test("opacity is clamped, hidden ≥ 0.5 hides, non-finite and misshapen values are ignored", () => {
  assert.equal(presentation(layer, { "mask.opacity": [1.5] }).opacity, 1);
  assert.equal(presentation(layer, { "mask.opacity": [-1] }).visible, false);
  assert.equal(presentation(layer, { "mask.hidden": [0.5] }).visible, false);
  assert.equal(presentation(layer, { "mask.hidden": [0.49] }).visible, true);
  assert.deepEqual(presentation(layer, { "mask.position": [NaN, 3] }).position, [187.5, 333.5]);
  assert.deepEqual(presentation(layer, { "mask.position": [1, 2, 3] }).position, [187.5, 333.5]);
  assert.deepEqual(presentation(layer, { "mask.position": [1e9, -1e9] }).position, [1e6, -1e6]);
});

test("bounds as a size keep the origin; a rect replaces it; negative sizes are 0", () => {
  assert.deepEqual(presentation(layer, { "mask.bounds": [10, 20] }).bounds, [0, 0, 10, 20]);
  assert.deepEqual(presentation(layer, { "mask.bounds": [1, 2, -3, 4] }).bounds, [1, 2, 0, 4]);
});

test("colours to CSS: channels rounded to 8 bits, clamped", () => {
  assert.equal(cssColor([1, 0.5, 0, 1]), "rgba(255, 128, 0, 1)");
  assert.equal(cssColor([2, -1, 0.2, 0.5]), "rgba(255, 0, 51, 0.5)");
});

test("pango font descriptions to CSS fonts; a hostile family cannot break out", () => {
  assert.equal(cssFont("DejaVu Sans Bold", 20), 'normal 700 20px "DejaVu Sans", sans-serif');
  assert.equal(cssFont("DejaVu Serif Italic", 12), 'italic 400 12px "DejaVu Serif", sans-serif');
  assert.equal(cssFont('x"; } body { color: red', 10), 'normal 400 10px "x  body  color: red", sans-serif');
});

test("contentsGravity placement as CurtainRender places images", () => {
  assert.deepEqual(placement(100, 50, "resizeAspect", [0, 0, 88, 88]), [0, 22, 88, 44]);
  assert.deepEqual(placement(100, 50, "resizeAspectFill", [0, 0, 88, 88]), [-44, 0, 176, 88]);
  assert.deepEqual(placement(10, 10, "topLeft", [5, 5, 88, 88]), [5, 5, 10, 10]);
  assert.deepEqual(placement(10, 10, "bottomRight", [0, 0, 88, 88]), [78, 78, 10, 10]);
  assert.deepEqual(placement(10, 10, "resize", [0, 0, 88, 44]), [0, 0, 88, 44]);
});

test("text wraps at words, then characters; variants wrap round", () => {
  const measure = (s) => s.length * 10;
  assert.deepEqual(wrapText("Buy and sell next door", 100, measure), ["Buy and", "sell next", "door"]);
  assert.deepEqual(wrapText("abcdefghijkl", 50, measure), ["abcde", "fghij", "kl"]);
  assert.equal(variant({ variants: ["a", "b", "c"] }, -1), "c");
  assert.equal(variant({ variants: ["a", "b", "c"] }, 4), "b");
});

test("replays: events parsed; bad lines refused with their number", () => {
  const r = parseReplay('{"kind":"state","launch":1,"time":5,"to":"presenting"}\n{"kind":"frame","launch":1,"time":5.5,"values":{"mask.scale":[2]}}\n');
  assert.equal(r.launch, 1);
  assert.equal(r.origin, 5);
  assert.equal(r.events.length, 2);
  assert.throws(() => parseReplay('{"kind":"frame","time":1,"values":{}}\n{"kind":"frame","launch":2,"time":1,"values":{}}\nnot json'), /line 3/);
  assert.throws(() => parseReplay('{"kind":"frame","launch":1,"time":1,"values":{}}\n{"kind":"frame","launch":2,"time":1,"values":{}}'), /line 2: an event of launch 2 after launch 1/);
  assert.throws(() => parseReplay('{"kind":"state","time":1,"to":"holding"}'), /no frames/);
  assert.throws(() => parseReplay('{"kind":"frame","time":"x","values":{}}'), /line 1: no finite "time"/);
});

test("the status strip's words", () => {
  assert.deepEqual(statusWords({ state: "revealing", destination: { app: "shop", screen: "home" }, progress: 0.426, transition: "reveal" }),
                   { state: "revealing", destination: "shop/home", progress: "reveal 43 %" });
  assert.deepEqual(statusWords({}), { state: "-", destination: "-", progress: "" });
});

test("a text sprite's URL carries the numbers as JavaScript writes them (the server reads the same doubles)", () => {
  const url = spriteURL("/scenes/2/text/1", [375, 667], 3, [0, 0, 327, 60], [1, 0, 0, 1, 24, 403.5 - 7.300000000000001], [375, 667]);
  assert.equal(url, "/scenes/2/text/1?width=375&height=667&variant=3&bounds=0,0,327,60&matrix=1,0,0,1,24,396.2&clip=375,667");
  assert.ok(spriteURL("/t", [1, 1], 0, [0, 0, 1, 1], [0.1 + 0.2, 0, 0, 1, 0, 0], [1, 1]).includes("matrix=0.30000000000000004,"));
});

test("a sprite's place: four integers, a positive size; anything else is refused", () => {
  assert.deepEqual(spritePlace("70 401 235 29"), { x: 70, y: 401, width: 235, height: 29 });
  assert.deepEqual(spritePlace("-3 -4 1 1"), { x: -3, y: -4, width: 1, height: 1 });
  for (const bad of [null, "", "1 2 3", "1 2 0 4", "1.5 2 3 4", "a b c d", "1 2 3 4 5"]) assert.equal(spritePlace(bad), null);
});
