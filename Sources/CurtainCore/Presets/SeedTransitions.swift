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

    /// Seed 001: the destination slides in from an edge (direction.x, direction.y ∈ {−1, 0, 1};
    /// the default, from the bottom) on a UIKit spring, while the splash stays underneath.
    static let slide = """
    {
      "name": "slide",
      "description": "Seed 001: the destination slides in from an edge on a spring.",
      "parameters": [
        {"name": "screen.width", "default": 375},
        {"name": "screen.height", "default": 667},
        {"name": "direction.x", "default": 0, "description": "-1 from the left, 1 from the right"},
        {"name": "direction.y", "default": 1, "description": "-1 from the top, 1 from the bottom"}
      ],
      "layers": [
        {"id": "window", "description": "the destination's main window, offset by a screen"},
        {"id": "splash", "initial": {"opacity": 1}}
      ],
      "animations": [
        {"layer": "window", "property": "translationX", "from": "direction.x * screen.width", "to": 0,
         "spring": {"duration": 1, "dampingRatio": 0.8}, "fill": "forwards"},
        {"layer": "window", "property": "translationY", "from": "direction.y * screen.height", "to": 0,
         "spring": {"duration": 1, "dampingRatio": 0.8}, "fill": "forwards"},
        {"layer": "splash", "property": "opacity", "from": 1, "to": 0, "duration": 0.2, "delay": 0.8, "fill": "both"}
      ]
    }
    """

    /// Seed 002: the splash logo moves to the frame the destination reports for its own logo
    /// (element.logo.* from X_CURTAIN_ELEMENTS; by default the splash logo's own frame, so
    /// nothing moves), while the splash background fades.
    static let logoMove = """
    {
      "name": "logo-move",
      "description": "Seed 002: the splash logo flies to where the destination draws its logo.",
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
        {"id": "logo", "description": "the splash logo, moved in the overlay's coordinates"},
        {"id": "splash", "description": "the splash background", "initial": {"opacity": 1}}
      ],
      "animations": [
        {"layer": "logo", "property": "position", "from": {"x": "splash.logo.x", "y": "splash.logo.y"},
         "to": {"x": "element.logo.x", "y": "element.logo.y"}, "duration": 0.5, "timing": "easeInEaseOut", "fill": "forwards"},
        {"layer": "logo", "property": "bounds",
         "from": {"x": 0, "y": 0, "width": "splash.logo.width", "height": "splash.logo.height"},
         "to": {"x": 0, "y": 0, "width": "element.logo.width", "height": "element.logo.height"},
         "duration": 0.5, "timing": "easeInEaseOut", "fill": "forwards"},
        {"layer": "splash", "property": "opacity", "from": 1, "to": 0, "duration": 0.5, "timing": "easeInEaseOut", "fill": "forwards"},
        {"layer": "logo", "property": "opacity", "from": 1, "to": 0, "duration": 0.1, "delay": 0.5, "fill": "both"}
      ]
    }
    """

    /// Seed 003: the destination rises as a panel from the bottom while what is behind it
    /// (the presenter, kept visible) blurs, like iOS 11's control centre.
    static let panelBlur = """
    {
      "name": "panel-blur",
      "description": "Seed 003: a panel rises while the background blurs; the presenter stays visible.",
      "parameters": [
        {"name": "screen.height", "default": 667},
        {"name": "blur", "default": 20, "description": "final blur radius of the background"}
      ],
      "layers": [
        {"id": "window", "description": "the destination, as a panel"},
        {"id": "backdrop", "description": "what was on screen before, kept visible", "initial": {"opacity": 1, "blurRadius": 0}},
        {"id": "splash", "initial": {"opacity": 1}}
      ],
      "animations": [
        {"layer": "window", "property": "translationY", "from": "screen.height", "to": 0, "duration": 0.5,
         "timing": "cubic-bezier(0.2, 0.9, 0.3, 1)", "fill": "forwards"},
        {"layer": "backdrop", "property": "blurRadius", "from": 0, "to": "blur", "duration": 0.5, "timing": "easeOut", "fill": "forwards"},
        {"layer": "splash", "property": "opacity", "from": 1, "to": 0, "duration": 0.15, "fill": "forwards"}
      ]
    }
    """
}
