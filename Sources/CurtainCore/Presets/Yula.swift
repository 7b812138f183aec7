// Seed 000 (Yula, Habr): the splash appears, then a logo-shaped hole opens in the main window.
// Every number below is the article's; the layer names map onto its views:
//   window   – the app's main window (`mainWindow`), scaled 1.05 → 1
//   mask     – the logo-shaped hole in the window (`mainWindow.layer.mask`)
//   logo     – the logo drawn under the hole (`maskBackgroundView`), fading out
//   splash   – the splash window above everything (`foregroundSplashWindow`), hidden at once
//   backdrop – the splash copy below the main window (`backgroundSplashWindow`) and its text
// scenes/yula/yula.scene.json draws them (docs/scene.md); `logo` is drawn in two places there,
// in the splash (appear) and inside the window under the hole (reveal).
extension Presets {
    /// `animateAppearance()`: the logo grows from 72 to 88 pt over 0.3 s, the text rises 20 pt
    /// over 0.3 s and fades in over 0.15 s (UIView.animate's default curve is ease-in-ease-out).
    /// Scale 1 is the logo's resting 88 pt frame, as in the reveal and the scene (the article
    /// scales a 72 pt view by 88/72; the same sizes, measured from the other end).
    static let yulaAppear = """
        {
          "name": "yula-appear",
          "description": "Seed 000 appear: logo 72 → 88 pt, text rises 20 pt and fades in.",
          "layers": [
            {"id": "logo", "description": "splash logo (logoImageView)"},
            {"id": "text", "description": "splash text, a random variant (textImageView)"}
          ],
          "animations": [
            {"layer": "logo", "property": "scale", "from": "72 / 88", "to": 1, "duration": 0.3,
             "timing": "easeInEaseOut", "fill": "forwards"},
            {"layer": "text", "property": "translationY", "from": 20, "to": 0, "duration": 0.3,
             "timing": "easeInEaseOut", "fill": "forwards"},
            {"layer": "text", "property": "opacity", "from": 0, "to": 1, "duration": 0.15,
             "timing": "easeInEaseOut", "fill": "forwards"}
          ]
        }
        """

    /// `animateDisappearance()`: mask and logo scale 1 → 0.85 → 18·(screen height / 667) at key
    /// times 0, 0.2, 1 (easeInEaseOut, then easeOut) and rotate 0 → −atan(y/x) of the layer's
    /// position, both over 0.6 s; the logo fades over 0.1 s after 0.1 s; the text fades over
    /// 0.3 s; the window settles 1.05 → 1 over 0.6 s. At the end the article sets
    /// `mainWindow.layer.mask = nil`: `mask.hidden` becomes 1 at exactly 0.6 s (a hidden mask
    /// masks nothing, so the whole window shows).
    static let yulaMaskReveal = """
        {
          "name": "yula-mask-reveal",
          "description": "Seed 000 reveal: a logo-shaped hole scales and rotates open over the destination.",
          "parameters": [
            {"name": "screen.width", "default": 375, "description": "points; the article's iPhone 6"},
            {"name": "screen.height", "default": 667},
            {"name": "mask.x", "default": "screen.width / 2", "description": "the hole's position (layer.position)"},
            {"name": "mask.y", "default": "screen.height / 2"}
          ],
          "layers": [
            {"id": "window", "description": "the destination's main window", "initial": {"scale": 1}},
            {"id": "mask", "description": "logo-shaped hole in the window; scale 1 = the splash logo's frame", "initial": {"hidden": 0}},
            {"id": "logo", "description": "the logo under the hole", "initial": {"opacity": 1}},
            {"id": "splash", "description": "foreground splash, hidden as the reveal starts", "initial": {"opacity": 0}},
            {"id": "backdrop", "description": "background splash below the window", "initial": {"opacity": 1}},
            {"id": "backdrop-text", "description": "the backdrop's text", "initial": {"opacity": 1}}
          ],
          "animations": [
            {"layer": "window", "property": "scale", "from": 1.05, "to": 1, "duration": 0.6,
             "timing": "easeInEaseOut", "fill": "forwards"},
            {"layer": "mask", "property": "scale", "duration": 0.6, "fill": "forwards",
             "keyframes": {"values": [1, 0.85, "18 * screen.height / 667"], "keyTimes": [0, 0.2, 1],
                           "timingFunctions": ["easeInEaseOut", "easeOut"]}},
            {"layer": "mask", "property": "rotation", "from": 0, "to": "-atan(mask.y / mask.x)",
             "duration": 0.6, "fill": "forwards"},
            {"layer": "mask", "property": "hidden", "duration": 0.6, "fill": "forwards",
             "keyframes": {"values": [0, 1], "keyTimes": [0, 1], "calculationMode": "discrete"}},
            {"layer": "logo", "property": "scale", "duration": 0.6, "fill": "forwards",
             "keyframes": {"values": [1, 0.85, "18 * screen.height / 667"], "keyTimes": [0, 0.2, 1],
                           "timingFunctions": ["easeInEaseOut", "easeOut"]}},
            {"layer": "logo", "property": "rotation", "from": 0, "to": "-atan(mask.y / mask.x)",
             "duration": 0.6, "fill": "forwards"},
            {"layer": "logo", "property": "opacity", "from": 1, "to": 0, "duration": 0.1, "delay": 0.1,
             "timing": "easeInEaseOut", "fill": "both"},
            {"layer": "backdrop-text", "property": "opacity", "from": 1, "to": 0, "duration": 0.3,
             "timing": "easeInEaseOut", "fill": "forwards"}
          ]
        }
        """
}
