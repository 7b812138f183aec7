// The other seeds' transitions, each as a timeline document. Layer names follow the overlay
// model: `splash` (the foreground splash window, above the main window), `backdrop` (the
// background splash window, below it), `window` (the destination's main window), `logo`.
extension Presets {
    /// A plain cross-fade: the reduced-motion variant of every transition.
    static let fade = """
        {
          "name": "fade",
          "description": "Cross-fade from the splash to the destination (also the reduced-motion reveal).",
          "layers": [
            {"id": "splash", "initial": {"opacity": 1}},
            {"id": "window", "initial": {"opacity": 0}}
          ],
          "animations": [
            {"layer": "splash", "property": "opacity", "from": 1, "to": 0, "duration": 0.3, "timing": "easeInEaseOut", "fill": "forwards"},
            {"layer": "window", "property": "opacity", "from": 0, "to": 1, "duration": 0.3, "timing": "easeInEaseOut", "fill": "forwards"}
          ]
        }
        """

    /// The reduced-motion appear: the splash fades in.
    static let fadeIn = """
        {
          "name": "fade-in",
          "description": "The splash fades in (the reduced-motion appear).",
          "layers": [{"id": "splash", "initial": {"opacity": 0}}],
          "animations": [
            {"layer": "splash", "property": "opacity", "from": 0, "to": 1, "duration": 0.2, "timing": "easeOut", "fill": "forwards"}
          ]
        }
        """

    /// Seed 001 (`CustomPresentationController`): the destination slides in from an edge
    /// (direction.x, direction.y ∈ {−1, 0, 1}; the article's four `PresentingDirection`s, by
    /// default from the bottom) by a full screen, on the article's UIKit spring — 1 s, damping
    /// 0.5, initial velocity 0 — while the presenter (the splash) dims to alpha 0.5 on the same
    /// spring and is set back to 1 at completion (`fromCtrl.view.alpha = 1`), as the article does.
    static let slide = """
        {
          "name": "slide",
          "description": "Seed 001: the destination slides in from an edge on a 1 s spring (damping 0.5); the splash dims to 0.5 and back.",
          "parameters": [
            {"name": "screen.width", "default": 375},
            {"name": "screen.height", "default": 667},
            {"name": "direction.x", "default": 0, "description": "-1 from the left, 1 from the right"},
            {"name": "direction.y", "default": 1, "description": "-1 from the top, 1 from the bottom"}
          ],
          "layers": [
            {"id": "window", "description": "the destination's main window, offset by a screen"},
            {"id": "splash", "description": "the presenter (fromCtrl.view)", "initial": {"opacity": 1}}
          ],
          "animations": [
            {"layer": "window", "property": "translationX", "from": "direction.x * screen.width", "to": 0,
             "spring": {"duration": 1, "dampingRatio": 0.5, "initialVelocity": 0}, "fill": "forwards"},
            {"layer": "window", "property": "translationY", "from": "direction.y * screen.height", "to": 0,
             "spring": {"duration": 1, "dampingRatio": 0.5, "initialVelocity": 0}, "fill": "forwards"},
            {"layer": "splash", "property": "opacity", "from": 1, "to": 0.5,
             "spring": {"duration": 1, "dampingRatio": 0.5, "initialVelocity": 0}, "fill": "forwards"},
            {"layer": "splash", "property": "opacity", "from": 1, "to": 1, "duration": 0, "delay": 1, "fill": "forwards"}
          ]
        }
        """

    /// Seed 001's `FlipDismissAnimationController`: 3 s, three keyframes of a third each in
    /// cubic mode. 1: the splash (the snapshot, corners rounded at once) shrinks to the
    /// destination frame — the card the app reports as element `card`, by default a centred
    /// card. 2: it turns about its vertical axis to π/2 (edge-on). 3: the app's window turns
    /// from −π/2 to 0. Both in perspective: m34 −0.002 (an eye 500 pt away; the article's
    /// `AnimationHelper.perspectiveTransform`, not printed in it, is the tutorial's −0.002),
    /// about each layer's own anchor rather than the container's.
    static let flip = """
        {
          "name": "flip",
          "description": "Seed 001's flip: the splash shrinks to a card, turns edge-on, and the app turns in (3 s, three cubic keyframes).",
          "parameters": [
            {"name": "screen.width", "default": 375},
            {"name": "screen.height", "default": 667},
            {"name": "element.card.x", "default": "screen.width / 2", "description": "centre of the destination frame (snapshot.frame = destinationFrame)"},
            {"name": "element.card.y", "default": "screen.height / 2"},
            {"name": "element.card.width", "default": "screen.width * 0.6"},
            {"name": "element.card.height", "default": "screen.height * 0.4"},
            {"name": "card.cornerRadius", "default": 25, "description": "CardViewController.cardCornerRadius"},
            {"name": "m34", "default": -0.002, "description": "perspective: -1 / eye distance"}
          ],
          "layers": [
            {"id": "window", "description": "the app's window (toView), edge-on until the last third",
             "initial": {"rotationY": "-pi / 2", "m34": "m34"}},
            {"id": "splash", "description": "the splash's snapshot, corners rounded",
             "initial": {"cornerRadius": "card.cornerRadius", "m34": "m34", "rotationY": 0,
                         "position": {"x": "screen.width / 2", "y": "screen.height / 2"}, "scaleX": 1, "scaleY": 1}}
          ],
          "animations": [
            {"layer": "splash", "property": "position", "duration": 1, "fill": "forwards",
             "keyframes": {"values": [{"x": "screen.width / 2", "y": "screen.height / 2"}, {"x": "element.card.x", "y": "element.card.y"}],
                           "calculationMode": "cubic"}},
            {"layer": "splash", "property": "scaleX", "duration": 1, "fill": "forwards",
             "keyframes": {"values": [1, "element.card.width / screen.width"], "calculationMode": "cubic"}},
            {"layer": "splash", "property": "scaleY", "duration": 1, "fill": "forwards",
             "keyframes": {"values": [1, "element.card.height / screen.height"], "calculationMode": "cubic"}},
            {"layer": "splash", "property": "rotationY", "duration": 1, "delay": 1, "fill": "forwards",
             "keyframes": {"values": [0, "pi / 2"], "calculationMode": "cubic"}},
            {"layer": "window", "property": "rotationY", "duration": 1, "delay": 2, "fill": "forwards",
             "keyframes": {"values": ["-pi / 2", 0], "calculationMode": "cubic"}}
          ]
        }
        """

    /// Seed 002 (Huvi): after a 0.35 s delay the splash logo moves, over 0.35 s easeInOut, to
    /// the frame the destination reports for its own logo (element.logo.* from
    /// X_CURTAIN_ELEMENTS; by default the splash logo's own frame, so nothing moves), while the
    /// splash background goes to clear; at the end the copy is removed at once
    /// (`logoView.removeFromSuperview`, `logo.hidden`) and the app shows its own logo.
    static let logoMove = """
        {
          "name": "logo-move",
          "description": "Seed 002: after 0.35 s the splash logo flies, over 0.35 s, to where the destination draws its logo.",
          "parameters": [
            {"name": "screen.width", "default": 375},
            {"name": "screen.height", "default": 667},
            {"name": "splash.logo.width", "default": 88},
            {"name": "splash.logo.height", "default": 88},
            {"name": "splash.logo.x", "default": "screen.width / 2"},
            {"name": "splash.logo.y", "default": "screen.height / 2"},
            {"name": "element.logo.x", "default": "splash.logo.x", "description": "centre of the destination's logo"},
            {"name": "element.logo.y", "default": "splash.logo.y"},
            {"name": "element.logo.width", "default": "splash.logo.width"},
            {"name": "element.logo.height", "default": "splash.logo.height"}
          ],
          "layers": [
            {"id": "logo", "description": "the splash logo, moved in the overlay's coordinates", "initial": {"hidden": 0}},
            {"id": "splash", "description": "the splash background", "initial": {"opacity": 1}}
          ],
          "animations": [
            {"layer": "logo", "property": "position", "from": {"x": "splash.logo.x", "y": "splash.logo.y"},
             "to": {"x": "element.logo.x", "y": "element.logo.y"}, "duration": 0.35, "delay": 0.35, "timing": "easeInEaseOut", "fill": "both"},
            {"layer": "logo", "property": "bounds",
             "from": {"x": 0, "y": 0, "width": "splash.logo.width", "height": "splash.logo.height"},
             "to": {"x": 0, "y": 0, "width": "element.logo.width", "height": "element.logo.height"},
             "duration": 0.35, "delay": 0.35, "timing": "easeInEaseOut", "fill": "both"},
            {"layer": "splash", "property": "opacity", "from": 1, "to": 0, "duration": 0.35, "delay": 0.35, "timing": "easeInEaseOut", "fill": "both"},
            {"layer": "logo", "property": "hidden", "from": 1, "to": 1, "duration": 0, "delay": 0.7, "fill": "forwards"}
          ]
        }
        """

    /// Seed 003 (iOS 11's control centre): over the article's 2.5 s (UIView.animate's default
    /// curve, easeInOut) the destination rises as a panel from the bottom, while what was on
    /// screen before — the presenter, kept (`shouldRemovePresentersView`) — goes to 50 %
    /// opacity and stays there, and blurs gradually (`blurRadius`: a Gaussian's standard
    /// deviation in points; the renderer blurs the retained previous screen).
    static let panelBlur = """
        {
          "name": "panel-blur",
          "description": "Seed 003: a panel rises over 2.5 s while the previous screen blurs and dims to 50 %, and stays.",
          "parameters": [
            {"name": "screen.height", "default": 667},
            {"name": "blur", "default": 20, "description": "final blur of the previous screen (Gaussian standard deviation, points)"}
          ],
          "layers": [
            {"id": "window", "description": "the destination, as a panel"},
            {"id": "backdrop", "description": "what was on screen before, kept visible", "initial": {"opacity": 1, "blurRadius": 0}}
          ],
          "animations": [
            {"layer": "window", "property": "translationY", "from": "screen.height", "to": 0, "duration": 2.5,
             "timing": "easeInEaseOut", "fill": "forwards"},
            {"layer": "backdrop", "property": "opacity", "from": 1, "to": 0.5, "duration": 2.5, "timing": "easeInEaseOut", "fill": "forwards"},
            {"layer": "backdrop", "property": "blurRadius", "from": 0, "to": "blur", "duration": 2.5, "timing": "easeInEaseOut", "fill": "forwards"}
          ]
        }
        """
}
