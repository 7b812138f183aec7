import CWaylandClient
import CWaylandProtocols

/// libwayland's listener tables: C function pointers that find their Swift object through the
/// `data` pointer. Allocated once for the process (libwayland keeps the pointers).
enum Listeners {
    static func make<T>(_ value: T) -> UnsafeMutablePointer<T> {
        let pointer = UnsafeMutablePointer<T>.allocate(capacity: 1)
        pointer.initialize(to: value)
        return pointer
    }

    nonisolated(unsafe) static let registry = make(
        wl_registry_listener(
            global: { data, registry, name, interface, version in
                OverlayDisplay.from(data).global(registry, name, String(cString: interface!), version)
            },
            global_remove: { data, _, name in OverlayDisplay.from(data).globalRemoved(name) }
        )
    )

    /// An output's scale, applied on `done` (wl_output v2: the scale and the geometry come
    /// as one atomic change).
    nonisolated(unsafe) static let output = make(
        wl_output_listener(
            geometry: { _, _, _, _, _, _, _, _, _, _ in },
            mode: { _, _, _, _, _, _ in },
            done: { data, output in OverlayDisplay.from(data).outputDone(output) },
            scale: { data, output, factor in OverlayDisplay.from(data).outputScale(output, Int(factor)) },
            name: { _, _, _ in },
            description: { _, _, _ in }
        )
    )

    /// Which outputs the overlay's surface is on: it is drawn at the largest of their scales.
    nonisolated(unsafe) static let surface = make(
        wl_surface_listener(
            enter: { data, _, output in OverlayDisplay.from(data).surfaceEntered(output, true) },
            leave: { data, _, output in OverlayDisplay.from(data).surfaceEntered(output, false) }
        )
    )

    nonisolated(unsafe) static let wmBase = make(
        xdg_wm_base_listener(
            ping: { _, base, serial in xdg_wm_base_pong(base, serial) })
    )

    nonisolated(unsafe) static let layerSurface = make(
        zwlr_layer_surface_v1_listener(
            configure: { data, layerSurface, serial, width, height in
                zwlr_layer_surface_v1_ack_configure(layerSurface, serial)
                OverlayDisplay.from(data).configure(width: Int(width), height: Int(height))
            },
            closed: { data, _ in OverlayDisplay.from(data).surfaceClosed = true }
        )
    )

    nonisolated(unsafe) static let xdgSurface = make(
        xdg_surface_listener(
            configure: { data, xdgSurface, serial in
                xdg_surface_ack_configure(xdgSurface, serial)
                let display = OverlayDisplay.from(data)
                // 0 × 0: ours to choose; keep the last size, else a common screen.
                let (w, h) = display.proposed
                display.configure(
                    width: w > 0 ? w : (display.width > 0 ? display.width : 1920),
                    height: h > 0 ? h : (display.height > 0 ? display.height : 1080)
                )
            })
    )

    nonisolated(unsafe) static let toplevel = make(
        xdg_toplevel_listener(
            configure: { data, _, width, height, _ in OverlayDisplay.from(data).proposed = (Int(width), Int(height)) },
            close: { _, _ in Log.info("the compositor asked the fallback toplevel to close; an overlay stays") },
            configure_bounds: { _, _, _, _ in },
            wm_capabilities: { _, _, _ in }
        )
    )

    nonisolated(unsafe) static let frame = make(
        wl_callback_listener(
            done: { data, callback, _ in
                let display = OverlayDisplay.from(data)
                // A repaint answers every callback asked before this one too.
                if let i = display.frameCallbacks.firstIndex(where: { $0.callback == callback }) {
                    for (older, _) in display.frameCallbacks[...i] { wl_callback_destroy(older) }
                    display.frameCallbacks.removeSubrange(...i)
                } else {
                    wl_callback_destroy(callback)
                }
            })
    )

    nonisolated(unsafe) static let buffer = make(
        wl_buffer_listener(
            release: { data, _ in Unmanaged<ShmBuffer>.fromOpaque(data!).takeUnretainedValue().busy = false })
    )
}

/// The interfaces' descriptions (libwayland's and wayland-scanner's), for wl_registry.bind.
enum Interfaces {
    static var compositor: UnsafePointer<wl_interface> { curtain_wl_compositor_interface() }
    static var shm: UnsafePointer<wl_interface> { curtain_wl_shm_interface() }
    static var layerShell: UnsafePointer<wl_interface> { curtain_zwlr_layer_shell_v1_interface() }
    static var wmBase: UnsafePointer<wl_interface> { curtain_xdg_wm_base_interface() }
    static var output: UnsafePointer<wl_interface> { curtain_wl_output_interface() }
}
