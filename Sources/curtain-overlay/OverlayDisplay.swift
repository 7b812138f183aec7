import CWaylandClient
import CWaylandProtocols
import CurtainCore
import CurtainRender

#if canImport(Glibc)
import Glibc
#endif

/// The Wayland side: one surface on the overlay layer (or a fullscreen toplevel), wl_shm
/// buffers at the output's scale, and the newest `Target` drawn the moment it arrives.
///
/// Frames are drawn with `SceneRenderer.render(values:into:previous:scale:)` straight into a
/// wl_shm buffer, laid out in the surface's logical points at the buffer scale; each buffer
/// remembers the frame it holds, so the renderer repaints only what changed since then (the
/// frame before last, with two buffers: buffer age), and the damage committed is what changed
/// since the last frame (`SceneRenderer.damage`). A drawn frame is committed
/// at once unless `maximumFramesInFlight` commits still wait for their wl_surface.frame
/// callback (then when one comes, the frames arriving meanwhile drawn over it): the drawing
/// never waits for the compositor's repaint, and a compositor that stops repainting stops it.
/// A frame is complete in a buffer before it is attached, and a buffer the compositor still
/// holds is never written: the screen never shows half a frame.
final class OverlayDisplay {
    static let firstBackoff = 0.1
    static let maximumBackoff = 2.0
    /// A frame callback that does not come (an output switched off) stops drawing no longer than this.
    static let frameCallbackTimeout = 0.25
    /// Commits the compositor has not shown yet (no frame callback yet) beyond which a drawn
    /// frame waits for a callback. 2, not 1: waiting for the last commit's callback before
    /// committing the next frame adds up to a whole refresh whenever the compositor repaints a
    /// little late (measured: the wait was the lateness's p99); one commit ahead is replaced
    /// by the next at the compositor's repaint (the newest frame shows, none queues), and a
    /// compositor that stops repainting still stops the drawing.
    static let maximumFramesInFlight = 2
    /// Buffers per surface: one on screen, one being drawn; one more only while the compositor
    /// holds both (it releases a buffer once a newer one has replaced it).
    static let bufferCount = 2
    static let maximumBuffers = 3
    /// A scene that fails to load is tried again after this long, doubling up to the maximum.
    static let sceneRetry = 1.0

    let mailbox: Mailbox

    // One compositor connection.
    var display: OpaquePointer?
    var registry: OpaquePointer?
    var compositor: OpaquePointer?
    var compositorVersion: UInt32 = 0
    var shm: OpaquePointer?
    var layerShell: OpaquePointer?
    var wmBase: OpaquePointer?
    var surface: OpaquePointer?
    var layerSurface: OpaquePointer?
    var xdgSurface: OpaquePointer?
    var toplevel: OpaquePointer?
    var configured = false
    /// The surface's size in the compositor's logical coordinates (the configure's).
    var width = 0, height = 0
    /// The size the last toplevel configure asked for (0: ours to choose).
    var proposed = (0, 0)
    var buffers: [ShmBuffer] = []
    /// Buffers of an old size or scale: destroyed once a buffer of the new one is committed
    /// (destroying the one on screen before that could show nothing for a moment).
    var retired: [ShmBuffer] = []
    /// The frame callbacks of commits not shown yet, oldest first, with when each was asked.
    var frameCallbacks: [(callback: OpaquePointer, requested: Double)] = []
    var surfaceClosed = false
    /// Set after a configure: the next commit repaints everything (a new size, a first map).
    var needsFull = true
    var warnedFallback = false

    // Outputs and scale.
    final class Output {
        let proxy: OpaquePointer
        let name: UInt32
        var scale = 1
        var pendingScale = 1
        init(proxy: OpaquePointer, name: UInt32) {
            self.proxy = proxy
            self.name = name
        }
    }
    var outputs: [Output] = []
    /// The outputs the surface is on (wl_surface.enter, .leave).
    var entered: [OpaquePointer] = []
    /// The buffer scale frames are drawn at: the largest scale of the outputs the surface is
    /// on (before the first enter, of all outputs). Buffers are width·scale × height·scale.
    var scale = 1
    /// The scale last given to wl_surface.set_buffer_scale (it takes effect with a commit).
    var committedScale = 1
    var pixelWidth: Int { width * scale }
    var pixelHeight: Int { height * scale }

    // Rendering.
    var renderers: [String: SceneRenderer] = [:]
    var failedScenes: [String: (retry: Double, delay: Double)] = [:]
    /// The frame drawn last (on screen or ready): what the next frame's damage is measured from.
    var lastValues: [String: Value]?
    var lastFor: DrawnBy?
    /// The target generation drawn last (into `ready` or committed).
    var drawnGeneration = -1
    var showingClear = false
    /// The committed input region: nil before the first commit, true when empty.
    var passThrough: Bool?
    var checkedLaunches: Set<Int64> = []

    /// A frame complete in a buffer, not committed yet (too many commits wait for callbacks).
    struct Ready {
        var buffer: ShmBuffer
        /// What changed since the last commit, in buffer pixels (nil: nothing).
        var damage: PixelRect?
        var passThrough: Bool
        /// --trace: when it was due and received, drawing started, rendered, its damage known; CPU seconds.
        var timing: Timing?
    }
    struct Timing {
        var due: Double, received: Double, start: Double, rendered: Double, damaged: Double, cpu: Double
    }
    var ready: Ready?
    /// Commits made: each buffer's `committed` says when it was last attached.
    var commits = 0

    init(mailbox: Mailbox) { self.mailbox = mailbox }

    var me: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    static func from(_ data: UnsafeMutableRawPointer?) -> OverlayDisplay {
        Unmanaged<OverlayDisplay>.fromOpaque(data!).takeUnretainedValue()
    }

    /// Connects, draws until the compositor goes away, and connects again with backoff.
    func run() {
        var backoff = Self.firstBackoff
        while !Mailbox.stopped {
            let name = getenv("WAYLAND_DISPLAY").map { String(cString: $0) } ?? "wayland-0"
            if let connection = wl_display_connect(nil) {
                display = connection
                Log.info("connected to the Wayland compositor \(name)")
                if session() { backoff = Self.firstBackoff }
                let error = wl_display_get_error(connection)
                teardown()
                if Mailbox.stopped { break }
                Log.warning(
                    "lost the Wayland compositor \(name)\(error != 0 ? " (\(String(cString: strerror(error))))" : ""); reconnecting"
                )
            } else {
                Log.error(
                    "cannot connect to the Wayland compositor \(name) (XDG_RUNTIME_DIR=\(getenv("XDG_RUNTIME_DIR").map { String(cString: $0) } ?? "unset")): \(String(cString: strerror(errno))); retrying in \(backoff) s"
                )
            }
            wait(seconds: backoff)
            backoff = min(backoff * 2, Self.maximumBackoff)
        }
    }

    /// Sleeps, waking early for a stop.
    func wait(seconds: Double) {
        var fds = [pollfd(fd: mailbox.fd, events: Int16(POLLIN), revents: 0)]
        let deadline = now() + seconds
        while !Mailbox.stopped, now() < deadline {
            _ = poll(&fds, 1, Int32(max(1, (deadline - now()) * 1000)))
            if Mailbox.stopped { return }
            mailbox.drain()
        }
    }

    /// One compositor connection: true if the surface was ever shown.
    func session() -> Bool {
        guard let display else { return false }
        registry = wl_display_get_registry(display)
        wl_registry_add_listener(registry, Listeners.registry, me)
        guard wl_display_roundtrip(display) >= 0 else { return false }
        guard compositor != nil, shm != nil else {
            Log.error("the compositor offers no wl_compositor or wl_shm: nothing can be drawn")
            return false
        }
        guard createSurface() else { return false }
        var shown = false
        let fd = wl_display_get_fd(display)
        while !Mailbox.stopped {
            while wl_display_prepare_read(display) != 0 {
                if wl_display_dispatch_pending(display) < 0 { return shown }
            }
            var wantsOut: Int16 = 0
            if wl_display_flush(display) < 0 {
                if errno == EAGAIN {
                    wantsOut = Int16(POLLOUT)
                } else {
                    wl_display_cancel_read(display)
                    return shown
                }
            }
            var timeout: Int32 = -1
            if let oldest = frameCallbacks.first {
                timeout = Int32(max(1, (oldest.requested + Self.frameCallbackTimeout - now()) * 1000))
            }
            if !failedScenes.isEmpty {
                timeout = timeout < 0 ? Int32(Self.sceneRetry * 1000) : min(timeout, Int32(Self.sceneRetry * 1000))
            }
            var fds = [
                pollfd(fd: fd, events: Int16(POLLIN) | wantsOut, revents: 0),
                pollfd(fd: mailbox.fd, events: Int16(POLLIN), revents: 0),
            ]
            let n = poll(&fds, 2, timeout)
            if n < 0, errno != EINTR {
                wl_display_cancel_read(display)
                return shown
            }
            if n > 0, fds[0].revents & Int16(POLLIN) != 0 {
                if wl_display_read_events(display) < 0 { return shown }
            } else {
                wl_display_cancel_read(display)
            }
            if fds[0].revents & Int16(POLLERR | POLLHUP) != 0 { return shown }
            if wl_display_dispatch_pending(display) < 0 { return shown }
            if n > 0, fds[1].revents & Int16(POLLIN) != 0 { mailbox.drain() }
            if surfaceClosed {
                // The output went away: a new surface, on whichever output the compositor picks.
                Log.warning("the overlay surface was closed (its output went away?); creating it again")
                destroySurface()
                guard createSurface() else { return shown }
            }
            if update() { shown = true }
        }
        return shown
    }

    func createSurface() -> Bool {
        surfaceClosed = false
        configured = false
        needsFull = true
        passThrough = nil
        entered = []
        surface = wl_compositor_create_surface(compositor)
        wl_surface_add_listener(surface, Listeners.surface, me)
        // Before the compositor says which output the surface is on: the outputs' scale.
        updateScale()
        if let layerShell {
            // Overlay layer (3), anchored to all four edges (1|2|4|8), over panels (zone -1),
            // never taking the keyboard (0); the size is the output's (0, 0).
            layerSurface = zwlr_layer_shell_v1_get_layer_surface(layerShell, surface, nil, 3, "curtain")
            zwlr_layer_surface_v1_add_listener(layerSurface, Listeners.layerSurface, me)
            zwlr_layer_surface_v1_set_anchor(layerSurface, 1 | 2 | 4 | 8)
            zwlr_layer_surface_v1_set_exclusive_zone(layerSurface, -1)
            zwlr_layer_surface_v1_set_keyboard_interactivity(layerSurface, 0)
            zwlr_layer_surface_v1_set_size(layerSurface, 0, 0)
        } else if let wmBase {
            if !warnedFallback {
                Log.warning(
                    "the compositor has no zwlr_layer_shell_v1 (layer-shell): falling back to a fullscreen xdg_toplevel, which other windows may cover and which may take the keyboard"
                )
                warnedFallback = true
            }
            xdgSurface = xdg_wm_base_get_xdg_surface(wmBase, surface)
            xdg_surface_add_listener(xdgSurface, Listeners.xdgSurface, me)
            toplevel = xdg_surface_get_toplevel(xdgSurface)
            xdg_toplevel_add_listener(toplevel, Listeners.toplevel, me)
            xdg_toplevel_set_title(toplevel, "curtain")
            xdg_toplevel_set_app_id(toplevel, "curtain-overlay")
            xdg_toplevel_set_fullscreen(toplevel, nil)
        } else {
            Log.error("the compositor offers neither zwlr_layer_shell_v1 nor xdg_wm_base: no way to show a surface")
            return false
        }
        wl_surface_commit(surface)
        return true
    }

    func destroySurface() {
        for (callback, _) in frameCallbacks { wl_callback_destroy(callback) }
        frameCallbacks = []
        ready = nil
        for buffer in buffers + retired { buffer.destroy() }
        buffers = []
        retired = []
        if let layerSurface { zwlr_layer_surface_v1_destroy(layerSurface) }
        if let toplevel { xdg_toplevel_destroy(toplevel) }
        if let xdgSurface { xdg_surface_destroy(xdgSurface) }
        if let surface { wl_surface_destroy(surface) }
        layerSurface = nil
        toplevel = nil
        xdgSurface = nil
        surface = nil
        configured = false
        committedScale = 1
        entered = []
    }

    func teardown() {
        destroySurface()
        for output in outputs { wl_output_destroy(output.proxy) }
        outputs = []
        if let layerShell { zwlr_layer_shell_v1_destroy(layerShell) }
        if let wmBase { xdg_wm_base_destroy(wmBase) }
        if let shm { wl_shm_destroy(shm) }
        if let compositor { wl_compositor_destroy(compositor) }
        if let registry { wl_registry_destroy(registry) }
        layerShell = nil
        wmBase = nil
        shm = nil
        compositor = nil
        registry = nil
        if let display { wl_display_disconnect(display) }
        display = nil
        // What was drawn belonged to that connection's buffers.
        lastValues = nil
        lastFor = nil
        drawnGeneration = -1
        showingClear = false
        scale = 1
    }

    // MARK: events

    func global(_ registry: OpaquePointer?, _ name: UInt32, _ interface: String, _ version: UInt32) {
        switch interface {
        case "wl_compositor":
            compositorVersion = min(version, 4)  // 3: set_buffer_scale, 4: damage_buffer
            compositor = OpaquePointer(wl_registry_bind(registry, name, Interfaces.compositor, compositorVersion))
        case "wl_shm":
            shm = OpaquePointer(wl_registry_bind(registry, name, Interfaces.shm, 1))
        case "zwlr_layer_shell_v1":
            layerShell = OpaquePointer(wl_registry_bind(registry, name, Interfaces.layerShell, min(version, 3)))
        case "xdg_wm_base":
            wmBase = OpaquePointer(wl_registry_bind(registry, name, Interfaces.wmBase, 1))
            xdg_wm_base_add_listener(wmBase, Listeners.wmBase, me)
        case "wl_output" where version >= 2:  // 2: scale and done
            guard let proxy = OpaquePointer(wl_registry_bind(registry, name, Interfaces.output, 2)) else { return }
            outputs.append(Output(proxy: proxy, name: name))
            wl_output_add_listener(proxy, Listeners.output, me)
        default:
            break
        }
    }

    /// An output unplugged: the surface is no longer on it (layer-shell also closes the surface).
    func globalRemoved(_ name: UInt32) {
        guard let index = outputs.firstIndex(where: { $0.name == name }) else { return }
        let output = outputs.remove(at: index)
        entered.removeAll { $0 == output.proxy }
        wl_output_destroy(output.proxy)
        updateScale()
    }

    func outputScale(_ proxy: OpaquePointer?, _ factor: Int) {
        guard let output = outputs.first(where: { $0.proxy == proxy }) else { return }
        if factor < 1 { Log.warning("an output reports scale \(factor); drawing it at 1") }
        output.pendingScale = max(1, factor)
    }

    func outputDone(_ proxy: OpaquePointer?) {
        guard let output = outputs.first(where: { $0.proxy == proxy }), output.scale != output.pendingScale else {
            return
        }
        output.scale = output.pendingScale
        updateScale()
    }

    func surfaceEntered(_ proxy: OpaquePointer?, _ isIn: Bool) {
        guard let proxy else { return }
        entered.removeAll { $0 == proxy }
        if isIn { entered.append(proxy) }
        updateScale()
    }

    /// Draws at the largest scale of the outputs the surface is on (of every output until the
    /// compositor says), within the buffer limit; a change redraws everything at the new size.
    func updateScale() {
        let on = outputs.filter { entered.contains($0.proxy) }
        var wanted = (on.isEmpty ? outputs : on).map(\.scale).max() ?? 1
        if compositorVersion < 3 { wanted = 1 }  // no set_buffer_scale
        let limit = SceneRenderer.Limits.outputDimension
        if width > 0, height > 0, width * wanted > limit || height * wanted > limit {
            let fits = max(1, min(limit / width, limit / height))
            Log.warning(
                "scale \(wanted) would make a \(width * wanted)×\(height * wanted) buffer, over \(limit) pixels a side: drawing at scale \(fits) (the compositor scales it up)"
            )
            wanted = fits
        }
        guard wanted != scale else { return }
        scale = wanted
        if configured {
            Log.info("output scale \(scale): drawing \(pixelWidth)×\(pixelHeight) pixels")
            resize()
        }
    }

    func configure(width: Int, height: Int) {
        guard width > 0, height > 0, width <= SceneRenderer.Limits.outputDimension,
            height <= SceneRenderer.Limits.outputDimension
        else {
            Log.error(
                "the compositor proposes a \(width)×\(height) surface, outside 1…\(SceneRenderer.Limits.outputDimension): ignored"
            )
            return
        }
        if width != self.width || height != self.height || !configured {
            self.width = width
            self.height = height
            configured = true
            let before = scale
            updateScale()  // the new size may not fit the current scale
            Log.info(
                "surface \(width)×\(height)\(layerShell != nil ? " on the overlay layer" : " (fullscreen toplevel)")\(scale > 1 ? " at scale \(scale) (\(pixelWidth)×\(pixelHeight) pixels)" : "")"
            )
            if scale == before { resize() }
        }
        configured = true
    }

    /// A new buffer size: the frame is drawn again at it, into new buffers; the old ones stay
    /// until a new one is committed (the screen keeps the last frame, no flash).
    func resize() {
        retired += buffers
        buffers = []
        ready = nil
        lastValues = nil
        lastFor = nil
        needsFull = true
        drawnGeneration = -1
    }

    // MARK: drawing

    /// Draws the newest target into a free buffer as soon as it is new, and commits what is
    /// drawn unless `maximumFramesInFlight` commits wait for their callback; true if it committed.
    @discardableResult
    func update() -> Bool {
        guard configured, surface != nil else { return false }
        while let oldest = frameCallbacks.first, now() - oldest.requested >= Self.frameCallbackTimeout {
            wl_callback_destroy(oldest.callback)
            frameCallbacks.removeFirst()
        }
        let target = mailbox.current
        if target.generation != drawnGeneration || needsFull || retryDue(target) { draw(target) }
        guard ready != nil, frameCallbacks.count < Self.maximumFramesInFlight else { return false }
        commit()
        return true
    }

    /// Draws `target` into a free buffer (or over the ready one): `ready`.
    func draw(_ target: Target) {
        if buffers.isEmpty {
            do {
                for _ in 0..<Self.bufferCount {
                    buffers.append(try ShmBuffer(shm: shm!, width: pixelWidth, height: pixelHeight))
                }
            } catch {
                Log.error("cannot allocate a \(pixelWidth)×\(pixelHeight) shm buffer: \(error)")
                return
            }
        }
        // The buffer already drawn (not attached yet) is drawn again; else, of those the
        // compositor does not hold, the one committed last (its frame is the newest: the least
        // to repaint); else a third, if the limit allows; else a release wakes us.
        var buffer = ready?.buffer ?? buffers.filter { !$0.busy }.max { $0.committed < $1.committed }
        if buffer == nil, buffers.count < Self.maximumBuffers,
            let extra = try? ShmBuffer(shm: shm!, width: pixelWidth, height: pixelHeight)
        {
            buffers.append(extra)
            buffer = extra
        }
        guard let buffer else { return }
        let start = bootTime()
        let cpuStart = threadCPUTime()
        var rendered = start
        var damage = prepare(target.content, into: buffer, rendered: &rendered)
        if needsFull { damage = PixelRect(x: 0, y: 0, width: pixelWidth, height: pixelHeight) }
        drawnGeneration = target.generation
        let wantsPassThrough: Bool
        if case .frame(let f) = target.content, !showingClear {
            wantsPassThrough = f.passThrough
        } else {
            wantsPassThrough = true
        }
        guard damage != nil || wantsPassThrough != (ready?.passThrough ?? passThrough) else { return }
        needsFull = false
        var timing: Timing? = nil
        if trace != nil, case .frame(let f) = target.content, let due = f.due {
            timing = Timing(
                due: due,
                received: f.received ?? start,
                start: start,
                rendered: rendered,
                damaged: bootTime(),
                cpu: threadCPUTime() - cpuStart
            )
        }
        // Damage since the last commit: a frame drawn over an uncommitted one adds to its damage.
        var accumulated = ready?.damage
        if let damage { accumulated = accumulated.map { $0.union(damage) } ?? damage }
        ready = Ready(buffer: buffer, damage: accumulated, passThrough: wantsPassThrough, timing: timing)
    }

    /// Attaches the ready buffer with its damage and input region, asks for the next frame
    /// callback and commits.
    func commit() {
        guard let drawn = ready, let surface else { return }
        ready = nil
        if drawn.passThrough != passThrough {
            if drawn.passThrough {
                let region = wl_compositor_create_region(compositor)
                wl_surface_set_input_region(surface, region)
                wl_region_destroy(region)
            } else {
                wl_surface_set_input_region(surface, nil)  // all of it: the splash takes the input
            }
            passThrough = drawn.passThrough
        }
        if scale != committedScale {
            wl_surface_set_buffer_scale(surface, Int32(scale))
            committedScale = scale
        }
        wl_surface_attach(surface, drawn.buffer.buffer, 0, 0)
        if let d = drawn.damage {
            if compositorVersion >= 4 {
                wl_surface_damage_buffer(surface, Int32(d.x), Int32(d.y), Int32(d.width), Int32(d.height))
            } else {
                // Surface coordinates: the buffer's pixels divided by the scale, rounded outwards.
                let x = d.x / scale
                let y = d.y / scale
                wl_surface_damage(
                    surface,
                    Int32(x),
                    Int32(y),
                    Int32((d.x + d.width + scale - 1) / scale - x),
                    Int32((d.y + d.height + scale - 1) / scale - y)
                )
            }
        }
        if let callback = wl_surface_frame(surface) {
            wl_callback_add_listener(callback, Listeners.frame, me)
            frameCallbacks.append((callback, now()))
        }
        wl_surface_commit(surface)
        drawn.buffer.busy = true
        commits += 1
        drawn.buffer.committed = commits
        for old in retired { old.destroy() }
        retired = []
        if let trace, let t = drawn.timing {
            // due, committed, CPU seconds drawing, then received, drawing started, rendered,
            // damage known (CLOCK_BOOTTIME seconds): Benchmarks/overlay.py.
            let line = "\(t.due) \(bootTime()) \(t.cpu) \(t.received) \(t.start) \(t.rendered) \(t.damaged)\n"
            _ = line.withCString { fputs($0, trace) }
            fflush(trace)
        }
    }

    /// --trace: one line per committed frame (see commit()).
    var trace: UnsafeMutablePointer<FILE>?

    func retryDue(_ target: Target) -> Bool {
        guard case .frame(let f) = target.content, let failed = failedScenes[key(f)] else { return false }
        return now() >= failed.retry
    }

    func key(_ f: FrameContent) -> String { f.scene + "#" + (f.sceneHash ?? "") }

    /// Draws `content` into `buffer`, repainting only what differs from the frame the buffer
    /// holds; returns what changed since the last frame drawn (nil: nothing), in buffer pixels.
    /// `rendered`: when the buffer was drawn (--trace).
    func prepare(_ content: Target.Content, into buffer: ShmBuffer, rendered: inout Double) -> PixelRect? {
        let full = PixelRect(x: 0, y: 0, width: pixelWidth, height: pixelHeight)
        func clear() -> PixelRect? {
            lastValues = nil
            lastFor = nil
            buffer.makeClear()
            rendered = bootTime()
            guard !showingClear else { return nil }
            showingClear = true
            return full
        }
        guard case .frame(let frame) = content else { return clear() }
        guard let renderer = renderer(for: frame), let image = buffer.image else { return clear() }
        do {
            checkLayers(frame, renderer)
            let wanted = DrawnBy(renderer: renderer, textVariant: frame.textVariant)
            // The buffer's frame is the base of the repaint if the same scene drew it.
            let previous = buffer.drawn.flatMap {
                $0.by == wanted ? $0.values : nil
            }
            // Half drawn until render returns: a failure clears the buffer before it is attached.
            buffer.drawn = nil
            buffer.isClear = false
            try renderer.render(
                values: frame.values,
                into: image,
                previous: previous,
                scale: scale,
                textVariant: frame.textVariant
            )
            buffer.drawn = (frame.values, wanted)
            rendered = bootTime()
            var damage: PixelRect? = full
            if !showingClear, let lastValues, let lastFor, lastFor == wanted {
                damage = try renderer.damage(
                    from: lastValues,
                    to: frame.values,
                    width: pixelWidth,
                    height: pixelHeight,
                    scale: scale,
                    textVariant: frame.textVariant
                )
            }
            showingClear = false
            lastValues = frame.values
            lastFor = wanted
            return damage
        } catch {
            Log.error("launch \(frame.launch): cannot draw a frame: \(error.message); clearing the overlay")
            return clear()
        }
    }

    /// The loaded scene, or nil (logged, cleared, tried again later) when it does not load.
    func renderer(for frame: FrameContent) -> SceneRenderer? {
        let key = key(frame)
        if let renderer = renderers[key] { return renderer }
        if let failed = failedScenes[key], now() < failed.retry { return nil }
        do {
            let renderer = try SceneRenderer(sceneFile: frame.scene)
            // an older version of the file
            renderers = renderers.filter { $0.key.hasPrefix(frame.scene + "#") == false }
            renderers[key] = renderer
            failedScenes[key] = nil
            Log.info("launch \(frame.launch): scene \(frame.scene)")
            return renderer
        } catch {
            let delay = min((failedScenes[key]?.delay ?? Self.sceneRetry / 2) * 2, Self.maximumBackoff * 8)
            failedScenes[key] = (now() + delay, delay)
            Log.error(
                "launch \(frame.launch): the scene does not load: \(error.message); clearing the overlay, trying again in \(delay) s"
            )
            return nil
        }
    }

    /// Frames naming layers the scene lacks are drawn without them, said once per launch.
    func checkLayers(_ frame: FrameContent, _ renderer: SceneRenderer) {
        guard !checkedLaunches.contains(frame.launch),
            let scene = try? renderer.scene(width: width, height: height)
        else { return }
        checkedLaunches.insert(frame.launch)
        var known = Set<String>()
        for layer in scene.allLayers {
            known.insert(layer.id)
            if let by = layer.animatedBy { known.insert(by) }
        }
        let unknown = Set(frame.values.keys.compactMap { key in key.split(separator: ".").first.map(String.init) })
            .subtracting(known)
        if !unknown.isEmpty {
            Log.warning(
                "launch \(frame.launch): frames animate layers \(unknown.sorted().joined(separator: ", ")) that \(frame.scene) lacks; drawn without them"
            )
        }
    }
}

/// Which scene drew a frame: its renderer (weak: a scene loaded again after it is freed may
/// get its address, so an ObjectIdentifier could match a renderer that never drew the
/// frame) and the text variant.
struct DrawnBy: Equatable {
    weak var renderer: SceneRenderer?
    var textVariant: Int

    static func == (a: DrawnBy, b: DrawnBy) -> Bool {
        a.renderer != nil && a.renderer === b.renderer && a.textVariant == b.textVariant
    }
}

/// One wl_shm buffer in a memfd, ARGB8888 (cairo's premultiplied ARGB32 on little-endian).
final class ShmBuffer {
    struct Failure: Error, CustomStringConvertible { let description: String }

    let buffer: OpaquePointer
    let data: UnsafeMutableRawPointer
    let width: Int, height: Int, stride: Int, size: Int
    var busy = false
    /// The buffer's pixels as a frame buffer the renderer draws into (nil once destroyed).
    private(set) var image: Image?
    /// The frame the buffer holds (nil: none, or half drawn).
    var drawn: (values: [String: Value], by: DrawnBy)?
    /// Every pixel is transparent (a new memfd is zeros).
    var isClear = true
    /// The display's commit count when it was last attached (0: never).
    var committed = 0

    init(shm: OpaquePointer, width: Int, height: Int) throws {
        stride = width * 4
        size = stride * height
        self.width = width
        self.height = height
        let fd = curtain_shm_file("curtain-overlay")
        guard fd >= 0 else { throw Failure(description: "memfd: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard ftruncate(fd, off_t(size)) == 0 else {
            throw Failure(description: "ftruncate: \(String(cString: strerror(errno)))")
        }
        guard let map = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), map != MAP_FAILED else {
            throw Failure(description: "mmap: \(String(cString: strerror(errno)))")
        }
        guard let image = Image(wrapping: map, width: width, height: height, stride: stride) else {
            munmap(map, size)
            throw Failure(description: "cairo refuses a \(width)×\(height) image over the buffer")
        }
        data = map
        let pool = wl_shm_create_pool(shm, fd, Int32(size))
        buffer = wl_shm_pool_create_buffer(
            pool,
            0,
            Int32(width),
            Int32(height),
            Int32(stride),
            0  // WL_SHM_FORMAT_ARGB8888
        )
        wl_shm_pool_destroy(pool)
        self.image = image
        wl_buffer_add_listener(buffer, Listeners.buffer, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Makes the buffer transparent.
    func makeClear() {
        drawn = nil
        guard !isClear else { return }
        image?.clear()
        isClear = true
    }

    func destroy() {
        wl_buffer_destroy(buffer)
        image = nil  // its cairo surface before the memory it draws into
        munmap(data, size)
    }
}
