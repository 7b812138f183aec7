// Draws a scene with a frame's values on a 2-D canvas, as CurtainRender's Painter does with
// cairo (docs/scene.md): layers in stacking order, groups for opacity and masks, and the
// destination rule — a destination layer *clears* its visible region (frame ∩ mask, times
// its opacity) with 'destination-out', so the page below (the app) shows there.
import { presentation, geometry, needsEffects, cssColor, cssFont, placement, wrapText, variant, spriteURL, spritePlace } from "./overlay.mjs";

// Contents sprites (text and images; overlay.mjs's spriteURL): decoded bitmaps by URL, at most
// `limit` (the least recently drawn dropped first), and each one's last sprite, a stand-in
// while a new one loads.
export class SpriteStore {
  constructor(limit = 128) {
    this.limit = limit;
    this.sprites = new Map();   // url → { bitmap, x, y } | { empty } | { failed }
    this.latest = new Map();    // sprite key → { bitmap, x, y, matrix }
    this.loading = new Map();   // url → Promise
  }

  get(url) {
    const s = this.sprites.get(url);
    if (s !== undefined) { this.sprites.delete(url); this.sprites.set(url, s); }
    return s;
  }

  // Fetches and decodes a sprite (once per URL at a time); resolves when it is stored.
  load(url) {
    if (this.sprites.has(url)) return Promise.resolve();
    if (!this.loading.has(url)) {
      this.loading.set(url, (async () => {
        let sprite;
        try {
          const response = await fetch(url);
          const place = spritePlace(response.headers.get("X-Curtain-Sprite"));
          if (response.status === 204) sprite = { empty: true };
          else if (!response.ok || !place) sprite = { failed: true };
          else {
            const bitmap = await createImageBitmap(await response.blob(), { premultiplyAlpha: "default", colorSpaceConversion: "none" });
            sprite = { bitmap, x: place.x, y: place.y };
          }
        } catch { sprite = { failed: true }; }
        this.sprites.set(url, sprite);
        while (this.sprites.size > this.limit) {
          const [oldest, s] = this.sprites.entries().next().value;
          this.sprites.delete(oldest);
          if (s.bitmap && ![...this.latest.values()].some((l) => l.bitmap === s.bitmap)) s.bitmap.close();
        }
        this.loading.delete(url);
      })());
    }
    return this.loading.get(url);
  }
}

export class Painter {
  // scene: the server's resolved scene JSON; images: asset URL → decoded HTMLImageElement.
  constructor(scene, images, textVariant = 0, sprites = null) {
    this.scene = scene;
    this.sprites = sprites;
    this.missing = new Set();   // sprite URLs this frame needed and did not have
    this.images = images;
    this.textVariant = textVariant;
    this.masks = new Set(scene.masks);
    this.byID = new Map();
    const index = (layers) => { for (const l of layers) { if (!this.byID.has(l.id)) this.byID.set(l.id, l); index(l.sublayers ?? []); } };
    index(scene.layers);
    this.pool = [];
  }

  // An offscreen canvas of the frame's size, transparent, with `matrix` (a DOMMatrix) set.
  group(matrix) {
    const canvas = this.pool.pop() ?? new OffscreenCanvas(this.width, this.height);
    const ctx = canvas.getContext("2d");
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.globalAlpha = 1;
    ctx.globalCompositeOperation = "source-over";
    ctx.filter = "none";
    ctx.clearRect(0, 0, this.width, this.height);
    if (matrix) ctx.setTransform(matrix);
    return ctx;
  }

  release(ctx) { this.pool.push(ctx.canvas); }

  render(ctx, values) {
    this.values = values ?? {};
    this.missing = new Set();
    this.width = ctx.canvas.width;
    this.height = ctx.canvas.height;
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.width, this.height);
    for (const layer of this.scene.layers) this.draw(ctx, layer);
    ctx.restore();
  }

  draw(ctx, layer) {
    if (this.masks.has(layer.id)) return;
    this.drawLayer(ctx, layer);
  }

  drawLayer(ctx, layer) {
    const p = presentation(layer, this.values);
    if (!p.visible) return;
    ctx.save();
    if (needsEffects(layer, p)) this.drawWithEffects(ctx, layer, p);
    else {
      ctx.transform(...geometry(p));
      this.drawBody(ctx, layer, p);
    }
    ctx.restore();
  }

  // Effects: the layer drawn flat offscreen, then blurred (canvas filter blur(σ): σ is the
  // Gaussian's standard deviation, as blurRadius) and/or turned about y in perspective.
  drawWithEffects(ctx, layer, p) {
    const flat = { ...p, transform: { ...p.transform, rotationY: 0, m34: 0 }, blurRadius: 0 };
    const t = p.transform;
    if (t.rotationY === 0) {
      const g = this.group(ctx.getTransform());
      g.transform(...geometry(flat));
      this.drawBody(g, layer, flat);
      ctx.save();
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.filter = `blur(${p.blurRadius}px)`;
      ctx.drawImage(g.canvas, 0, 0);
      ctx.restore();
      this.release(g);
      return;
    }
    // 3-D: the layer (scaled, not rotated or moved) drawn about its anchor at the origin of
    // an offscreen image, then mapped in vertical strips, each an affine map onto its
    // trapezoid (x, y) → (x·cos θ, y) / w, w = 1 − m34·x·sin θ (exact at the strip edges).
    const [bx, by, bw, bh] = p.bounds;
    const ax = bx + p.anchorPoint[0] * bw, ay = by + p.anchorPoint[1] * bh;
    const sx = t.scaleX, sy = t.scaleY;
    const w = Math.ceil(Math.abs(bw * sx)) + 4, h = Math.ceil(Math.abs(bh * sy)) + 4;
    if (w > 8192 || h > 8192 || w < 1 || h < 1) return;
    const image = new OffscreenCanvas(w, h);
    const ic = image.getContext("2d");
    const ox = -(bx - ax) * sx + 2, oy = -(by - ay) * sy + 2;  // the anchor's pixel in the image
    ic.setTransform(sx, 0, 0, sy, ox - ax * sx, oy - ay * sy);
    const body = { ...flat, transform: { scaleX: 1, scaleY: 1, rotation: 0, translationX: 0, translationY: 0, rotationY: 0, m34: 0 } };
    this.drawBody(ic, layer, body);
    const cos = Math.cos(t.rotationY), sin = Math.sin(t.rotationY);
    const base = ctx.getTransform()
      .translate(p.position[0] + t.translationX, p.position[1] + t.translationY)
      .rotate(t.rotation * 180 / Math.PI);
    const project = (x) => { const k = 1 - t.m34 * x * sin; return [x * cos / k, 1 / k]; };
    const strip = 2;
    for (let u = 0; u < w; u += strip) {
      const u1 = Math.min(u + strip, w);
      const x0 = u - ox, x1 = u1 - ox;
      const [px0, k0] = project(x0), [px1, k1] = project(x1);
      if (!(k0 > 0 && k1 > 0)) continue;
      // An affine map through the strip's top corners and its left edge's scale.
      const m = new DOMMatrix([(px1 - px0) / (x1 - x0), (k1 - k0) * (-oy) / (x1 - x0) * 0, 0, (k0 + k1) / 2, px0 - x0 * (px1 - px0) / (x1 - x0), 0]);
      ctx.save();
      ctx.setTransform(base.multiply(m));
      ctx.globalAlpha *= p.opacity;
      ctx.drawImage(image, u, 0, u1 - u, h, x0, -oy, u1 - u, h);
      ctx.restore();
    }
  }

  drawBody(ctx, layer, p) {
    if (layer.role === "destination") return this.drawDestination(ctx, layer, p);
    const maskLayer = layer.mask ? this.byID.get(layer.mask.layer) : undefined;
    const maskRef = maskLayer && !presentation(maskLayer, this.values).hidden ? layer.mask : null;
    const subs = (layer.sublayers ?? []).some((s) => !this.masks.has(s.id) && presentation(s, this.values).visible);
    if (!maskRef && !subs) {
      ctx.save();
      ctx.globalAlpha *= p.opacity;
      this.paintContents(ctx, layer, p);
      ctx.restore();
      return;
    }
    const g = this.group(ctx.getTransform());
    this.paintContents(g, layer, p);
    for (const s of layer.sublayers ?? []) this.draw(g, s);
    if (maskRef) {
      const m = this.maskAlpha(ctx.getTransform(), maskRef);
      g.save();
      g.setTransform(1, 0, 0, 1, 0, 0);
      g.globalCompositeOperation = "destination-in";
      g.drawImage(m.canvas, 0, 0);
      g.restore();
      this.release(m);
    }
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.globalAlpha *= p.opacity;
    ctx.drawImage(g.canvas, 0, 0);
    ctx.restore();
    this.release(g);
  }

  // The mask layer drawn (with its sublayers) in the masked layer's space; inverted: its
  // complement.
  maskAlpha(matrix, ref) {
    const m = this.group(matrix);
    this.drawLayer(m, this.byID.get(ref.layer));
    if (!ref.inverted) return m;
    const inv = this.group(null);
    inv.fillStyle = "#000";
    inv.fillRect(0, 0, this.width, this.height);
    inv.globalCompositeOperation = "destination-out";
    inv.drawImage(m.canvas, 0, 0);
    this.release(m);
    return inv;
  }

  // The destination rule: clear frame ∩ mask (times opacity) to alpha 0, then the
  // sublayers inside that region, above the app.
  drawDestination(ctx, layer, p) {
    const matrix = ctx.getTransform();
    const region = this.group(matrix);
    region.beginPath();
    roundedRect(region, p.bounds, p.cornerRadius);
    region.clip();
    const maskLayer = layer.mask ? this.byID.get(layer.mask.layer) : undefined;
    region.globalAlpha = p.opacity;
    if (maskLayer && !presentation(maskLayer, this.values).hidden) {
      const m = this.maskAlpha(matrix, layer.mask);
      region.save();
      region.setTransform(1, 0, 0, 1, 0, 0);
      region.drawImage(m.canvas, 0, 0);
      region.restore();
      this.release(m);
    } else {
      region.fillStyle = "#000";
      region.fillRect(-1e7, -1e7, 2e7, 2e7);
    }
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.globalCompositeOperation = "destination-out";
    ctx.drawImage(region.canvas, 0, 0);
    ctx.restore();
    const subs = (layer.sublayers ?? []).some((s) => !this.masks.has(s.id) && presentation(s, this.values).visible);
    if (subs) {
      const g = this.group(matrix);
      for (const s of layer.sublayers) this.draw(g, s);
      g.setTransform(1, 0, 0, 1, 0, 0);
      g.globalCompositeOperation = "destination-in";
      g.drawImage(region.canvas, 0, 0);
      ctx.save();
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.drawImage(g.canvas, 0, 0);
      ctx.restore();
      this.release(g);
    }
    this.release(region);
  }

  // Background colour, gradient, image, path, text — in the layer's coordinates.
  paintContents(ctx, layer, p) {
    if (layer.role === "destination") return;
    const [x, y, w, h] = p.bounds;
    if (p.backgroundColor) {
      ctx.fillStyle = cssColor(p.backgroundColor);
      ctx.beginPath();
      roundedRect(ctx, p.bounds, p.cornerRadius);
      ctx.fill();
    }
    const g = layer.gradient;
    if (g) {
      const gradient = ctx.createLinearGradient(x + g.startPoint[0] * w, y + g.startPoint[1] * h, x + g.endPoint[0] * w, y + g.endPoint[1] * h);
      g.colors.forEach((c, i) => gradient.addColorStop(Math.min(Math.max(g.locations[i], 0), 1), cssColor(c)));
      ctx.fillStyle = gradient;
      ctx.beginPath();
      roundedRect(ctx, p.bounds, p.cornerRadius);
      ctx.fill();
    }
    // An image: CurtainRender's pixels (librsvg's, cairo's filtering) as a sprite, as text.
    if (layer.contents && !this.paintSprite(ctx, layer.contentsSprite, 0, p.bounds)) {
      const image = this.images.get(layer.contents);
      if (image && image.naturalWidth > 0 && image.naturalHeight > 0) {
        const [px, py, pw, ph] = placement(image.naturalWidth, image.naturalHeight, layer.contentsGravity, p.bounds);
        if (pw > 0 && ph > 0) {
          ctx.save();
          if (layer.contentsGravity === "resizeAspectFill") { ctx.beginPath(); ctx.rect(x, y, w, h); ctx.clip(); }
          ctx.drawImage(image, px, py, pw, ph);
          ctx.restore();
        }
      }
    }
    if (layer.path) {
      const path = new Path2D();
      for (const c of layer.path) {
        if (c[0] === "M") path.moveTo(c[1], c[2]);
        else if (c[0] === "L") path.lineTo(c[1], c[2]);
        else if (c[0] === "C") path.bezierCurveTo(c[1], c[2], c[3], c[4], c[5], c[6]);
        else if (c[0] === "Z") path.closePath();
      }
      ctx.fillStyle = cssColor(layer.fillColor);
      ctx.fill(path, layer.fillRule === "evenodd" ? "evenodd" : "nonzero");
    }
    if (layer.text) this.paintText(ctx, layer.text, p.bounds);
  }

  // Text: CurtainRender's pixels.
  paintText(ctx, text, bounds) {
    if (!this.paintSprite(ctx, text.sprite, this.textVariant, bounds)) this.paintBrowserText(ctx, text, bounds);
  }

  // A contents sprite (text or image, overlay.mjs's spriteURL) drawn 1:1 on the device grid,
  // with the context's alpha and compositing. Until it has loaded: its last sprite moved by
  // the change of matrix. False when there is none (the caller draws the browser's own).
  paintSprite(ctx, base, textVariant, bounds) {
    if (!this.sprites || !base) return false;
    const m = ctx.getTransform();
    const matrix = [m.a, m.b, m.c, m.d, m.e, m.f];
    const url = spriteURL(base, [this.scene.width, this.scene.height], textVariant, bounds, matrix,
                          [ctx.canvas.width, ctx.canvas.height]);
    const key = `${base}#${textVariant}`;
    const sprite = this.sprites.get(url);
    if (sprite?.bitmap) this.sprites.latest.set(key, { ...sprite, matrix: m });
    if (sprite && !sprite.failed) {
      if (sprite.bitmap) { ctx.save(); ctx.setTransform(1, 0, 0, 1, 0, 0); ctx.drawImage(sprite.bitmap, sprite.x, sprite.y); ctx.restore(); }
      return true;
    }
    if (!sprite) {
      this.missing.add(url);
      const last = this.sprites.latest.get(key);
      const move = last && m.multiply(last.matrix.inverse());
      if (move && [move.a, move.b, move.c, move.d, move.e, move.f].every(Number.isFinite)) {
        ctx.save(); ctx.setTransform(move); ctx.drawImage(last.bitmap, last.x, last.y); ctx.restore();
        return true;
      }
    }
    return false;
  }

  // The browser's text (fillText, never markup), wrapped at the bounds' width from their top.
  paintBrowserText(ctx, text, bounds) {
    const [x, y, w] = bounds;
    ctx.save();
    ctx.font = cssFont(text.font, text.fontSize);
    ctx.fillStyle = cssColor(text.color);
    ctx.textBaseline = "alphabetic";
    ctx.textAlign = "left";
    const metrics = ctx.measureText("Hg");
    const ascent = metrics.fontBoundingBoxAscent ?? text.fontSize * 0.93;
    const descent = metrics.fontBoundingBoxDescent ?? text.fontSize * 0.24;
    const lines = wrapText(variant(text, this.textVariant), Math.max(w, 1), (s) => ctx.measureText(s).width);
    lines.forEach((line, i) => {
      const lw = ctx.measureText(line).width;
      const lx = text.alignment === "center" ? x + (w - lw) / 2 : text.alignment === "right" ? x + w - lw : x;
      ctx.fillText(line, lx, y + ascent + i * (ascent + descent));
    });
    ctx.restore();
  }
}

export function roundedRect(ctx, b, radius) {
  const [x, y, w, h] = b;
  const r = Math.min(radius, w / 2, h / 2);
  if (!(r > 0)) { ctx.rect(x, y, w, h); return; }
  ctx.roundRect(x, y, w, h, r);
}
