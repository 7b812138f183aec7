#if canImport(Glibc)
import Glibc
#endif
import CWaylandClient
import CWaylandProtocols
import CurtainCore
import CurtainRender

/// The Wayland side: one surface on the overlay layer (or a fullscreen toplevel), two wl_shm
/// buffers, and the newest `Target` drawn once per wl_surface.frame callback.
///
/// Frames are drawn with `SceneRenderer.render(values:into:previous:)` into one kept image,
/// which repaints only what changed since the last frame; each shm buffer remembers the
/// region it still lacks and copies just that from the kept image before it is attached. A
/// frame is complete in the kept image before any of it reaches a buffer, and a buffer the
/// compositor still holds is never written: the screen never shows half a frame.
final class OverlayDisplay {
    static let firstBackoff = 0.1
    static let maximumBackoff = 2.0
    /// A frame callback that does not come (an output switched off) stops drawing no longer than this.
    static let frameCallbackTimeout = 0.25
    /// Buffers per surface: one on screen, one being drawn (a third only if the compositor holds both).
    static let bufferCount = 2
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
    var width = 0, height = 0
    /// The size the last toplevel configure asked for (0: ours to choose).
    var proposed = (0, 0)
    var buffers: [ShmBuffer] = []
    var frameCallback: OpaquePointer?
    var frameRequested = 0.0
    var surfaceClosed = false
    /// Set after a configure: the next commit repaints everything (a new size, a first map).
    var needsFull = true
    var warnedFallback = false

    // Rendering.
    var renderers: [String: SceneRenderer] = [:]
    var failedScenes: [String: (retry: Double, delay: Double)] = [:]
    var kept: Image?
    var keptFor: (renderer: ObjectIdentifier, textVariant: Int)?
    var lastValues: [String: Value]?
    var shownGeneration = -1
    var showingClear = false
    var passThrough: Bool?
    var checkedLaunches: Set<Int64> = []

    init(mailbox: Mailbox) { self.mailbox = mailbox }

    var me: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    static func from(_ data: UnsafeMutableRawPointer?) -> OverlayDisplay { Unmanaged<OverlayDisplay>.fromOpaque(data!).takeUnretainedValue() }

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
                Log.warning("lost the Wayland compositor \(name)\(error != 0 ? " (\(String(cString: strerror(error))))" : ""); reconnecting")
            } else {
                Log.error("cannot connect to the Wayland compositor \(name) (XDG_RUNTIME_DIR=\(getenv("XDG_RUNTIME_DIR").map { String(cString: $0) } ?? "unset")): \(String(cString: strerror(errno))); retrying in \(backoff) s")
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
                if errno == EAGAIN { wantsOut = Int16(POLLOUT) } else { wl_display_cancel_read(display); return shown }
            }
            var timeout: Int32 = -1
            if frameCallback != nil { timeout = Int32(max(1, (frameRequested + Self.frameCallbackTimeout - now()) * 1000)) }
            if !failedScenes.isEmpty { timeout = timeout < 0 ? Int32(Self.sceneRetry * 1000) : min(timeout, Int32(Self.sceneRetry * 1000)) }
            var fds = [pollfd(fd: fd, events: Int16(POLLIN) | wantsOut, revents: 0), pollfd(fd: mailbox.fd, events: Int16(POLLIN), revents: 0)]
            let n = poll(&fds, 2, timeout)
            if n < 0, errno != EINTR { wl_display_cancel_read(display); return shown }
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
        surface = wl_compositor_create_surface(compositor)
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
                Log.warning("the compositor has no zwlr_layer_shell_v1 (layer-shell): falling back to a fullscreen xdg_toplevel, which other windows may cover and which may take the keyboard")
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
        if let frameCallback { wl_callback_destroy(frameCallback) }
        frameCallback = nil
        for buffer in buffers { buffer.destroy() }
        buffers = []
        if let layerSurface { zwlr_layer_surface_v1_destroy(layerSurface) }
        if let toplevel { xdg_toplevel_destroy(toplevel) }
        if let xdgSurface { xdg_surface_destroy(xdgSurface) }
        if let surface { wl_surface_destroy(surface) }
        layerSurface = nil; toplevel = nil; xdgSurface = nil; surface = nil
        configured = false
    }

    func teardown() {
        destroySurface()
        if let layerShell { zwlr_layer_shell_v1_destroy(layerShell) }
        if let wmBase { xdg_wm_base_destroy(wmBase) }
        if let shm { wl_shm_destroy(shm) }
        if let compositor { wl_compositor_destroy(compositor) }
        if let registry { wl_registry_destroy(registry) }
        layerShell = nil; wmBase = nil; shm = nil; compositor = nil; registry = nil
        if let display { wl_display_disconnect(display) }
        display = nil
        // What was drawn belonged to that connection's buffers.
        kept = nil; keptFor = nil; lastValues = nil; shownGeneration = -1; showingClear = false
    }

    // MARK: events

    func global(_ registry: OpaquePointer?, _ name: UInt32, _ interface: String, _ version: UInt32) {
        switch interface {
        case "wl_compositor":
            compositorVersion = min(version, 4)   // 4: damage_buffer
            compositor = OpaquePointer(wl_registry_bind(registry, name, Interfaces.compositor, compositorVersion))
        case "wl_shm":
            shm = OpaquePointer(wl_registry_bind(registry, name, Interfaces.shm, 1))
        case "zwlr_layer_shell_v1":
            layerShell = OpaquePointer(wl_registry_bind(registry, name, Interfaces.layerShell, min(version, 3)))
        case "xdg_wm_base":
            wmBase = OpaquePointer(wl_registry_bind(registry, name, Interfaces.wmBase, 1))
            xdg_wm_base_add_listener(wmBase, Listeners.wmBase, me)
        default:
            break
        }
    }

    func configure(width: Int, height: Int) {
        guard width > 0, height > 0, width <= SceneRenderer.Limits.outputDimension, height <= SceneRenderer.Limits.outputDimension else {
            Log.error("the compositor proposes a \(width)×\(height) surface, outside 1…\(SceneRenderer.Limits.outputDimension): ignored")
            return
        }
        if width != self.width || height != self.height || !configured {
            Log.info("surface \(width)×\(height)\(layerShell != nil ? " on the overlay layer" : " (fullscreen toplevel)")")
            self.width = width
            self.height = height
            for buffer in buffers { buffer.destroy() }
            buffers = []
            kept = nil
            needsFull = true
        }
        configured = true
    }

    // MARK: drawing

    /// Draws and commits the newest target if the last frame was taken; true if it committed.
    @discardableResult
    func update() -> Bool {
        guard configured, let surface else { return false }
        if frameCallback != nil {
            guard now() - frameRequested >= Self.frameCallbackTimeout else { return false }
            wl_callback_destroy(frameCallback)
            frameCallback = nil
        }
        let target = mailbox.current
        guard target.generation != shownGeneration || needsFull || retryDue(target) else { return false }
        if buffers.isEmpty {
            do {
                for _ in 0..<Self.bufferCount { buffers.append(try ShmBuffer(shm: shm!, width: width, height: height)) }
            } catch {
                Log.error("cannot allocate a \(width)×\(height) shm buffer: \(error)")
                return false
            }
        }
        guard let buffer = buffers.first(where: { !$0.busy }) else { return false }   // both held: a release wakes us
        let full = PixelRect(x: 0, y: 0, width: width, height: height)
        let cpuStart = threadCPUTime()
        var damage = prepare(target.content)
        if needsFull {
            for b in buffers { b.pending = full }
            damage = full
        }
        shownGeneration = target.generation
        let wantsPassThrough: Bool
        if case .frame(let f) = target.content, !showingClear { wantsPassThrough = f.passThrough } else { wantsPassThrough = true }
        guard damage != nil || wantsPassThrough != passThrough else { return false }
        buffer.fill(from: kept)
        let cpu = threadCPUTime() - cpuStart
        if wantsPassThrough != passThrough {
            if wantsPassThrough {
                let region = wl_compositor_create_region(compositor)
                wl_surface_set_input_region(surface, region)
                wl_region_destroy(region)
            } else {
                wl_surface_set_input_region(surface, nil)   // all of it: the splash takes the input
            }
            passThrough = wantsPassThrough
        }
        wl_surface_attach(surface, buffer.buffer, 0, 0)
        if let d = damage {
            if compositorVersion >= 4 {
                wl_surface_damage_buffer(surface, Int32(d.x), Int32(d.y), Int32(d.width), Int32(d.height))
            } else {
                wl_surface_damage(surface, Int32(d.x), Int32(d.y), Int32(d.width), Int32(d.height))
            }
        }
        frameCallback = wl_surface_frame(surface)
        wl_callback_add_listener(frameCallback, Listeners.frame, me)
        frameRequested = now()
        wl_surface_commit(surface)
        buffer.busy = true
        needsFull = false
        if let trace, case .frame(let f) = target.content, let due = f.due {
            // due, committed (CLOCK_BOOTTIME seconds), CPU seconds spent drawing: Benchmarks/overlay.
            let line = "\(due) \(bootTime()) \(cpu)\n"
            _ = line.withCString { fputs($0, trace) }
            fflush(trace)
        }
        return true
    }

    /// --trace: one line per committed frame (see update()).
    var trace: UnsafeMutablePointer<FILE>?

    func retryDue(_ target: Target) -> Bool {
        guard case .frame(let f) = target.content, let failed = failedScenes[key(f)] else { return false }
        return now() >= failed.retry
    }

    func key(_ f: FrameContent) -> String { f.scene + "#" + (f.sceneHash ?? "") }

    /// Brings the kept image to `content`; returns the region that changed (nil: nothing).
    func prepare(_ content: Target.Content) -> PixelRect? {
        let full = PixelRect(x: 0, y: 0, width: width, height: height)
        func clear() -> PixelRect? {
            guard !showingClear else { return nil }
            kept = nil
            keptFor = nil
            lastValues = nil
            showingClear = true
            for b in buffers { b.pending = full }
            return full
        }
        guard case .frame(let frame) = content else { return clear() }
        guard let renderer = renderer(for: frame) else { return clear() }
        do {
            checkLayers(frame, renderer)
            let wanted = (ObjectIdentifier(renderer), frame.textVariant)
            if kept == nil || kept!.width != width || kept!.height != height || keptFor! != wanted {
                kept = try renderer.makeFrame(width: width, height: height)
                keptFor = wanted
                lastValues = nil
            }
            let damage = try renderer.render(values: frame.values, into: kept!, previous: lastValues, textVariant: frame.textVariant)
            lastValues = frame.values
            if showingClear {
                showingClear = false
                for b in buffers { b.pending = full }
                return full
            }
            if let damage { for b in buffers { b.pending = b.pending.map { $0.union(damage) } ?? damage } }
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
            renderers = renderers.filter { $0.key.hasPrefix(frame.scene + "#") == false }   // an older version of the file
            renderers[key] = renderer
            failedScenes[key] = nil
            Log.info("launch \(frame.launch): scene \(frame.scene)")
            return renderer
        } catch {
            let delay = min((failedScenes[key]?.delay ?? Self.sceneRetry / 2) * 2, Self.maximumBackoff * 8)
            failedScenes[key] = (now() + delay, delay)
            Log.error("launch \(frame.launch): the scene does not load: \(error.message); clearing the overlay, trying again in \(delay) s")
            return nil
        }
    }

    /// Frames naming layers the scene lacks are drawn without them, said once per launch.
    func checkLayers(_ frame: FrameContent, _ renderer: SceneRenderer) {
        guard !checkedLaunches.contains(frame.launch), let scene = try? renderer.scene(width: width, height: height) else { return }
        checkedLaunches.insert(frame.launch)
        var known = Set<String>()
        for layer in scene.allLayers { known.insert(layer.id); if let by = layer.animatedBy { known.insert(by) } }
        let unknown = Set(frame.values.keys.compactMap { key in key.split(separator: ".").first.map(String.init) }).subtracting(known)
        if !unknown.isEmpty {
            Log.warning("launch \(frame.launch): frames animate layers \(unknown.sorted().joined(separator: ", ")) that \(frame.scene) lacks; drawn without them")
        }
    }
}

/// One wl_shm buffer in a memfd, ARGB8888 (cairo's premultiplied ARGB32 on little-endian).
final class ShmBuffer {
    struct Failure: Error, CustomStringConvertible { let description: String }

    let buffer: OpaquePointer
    let data: UnsafeMutableRawPointer
    let width: Int, height: Int, stride: Int, size: Int
    var busy = false
    /// What this buffer lacks of the kept image (nil: up to date).
    var pending: PixelRect?

    init(shm: OpaquePointer, width: Int, height: Int) throws {
        stride = width * 4
        size = stride * height
        self.width = width
        self.height = height
        let fd = curtain_shm_file("curtain-overlay")
        guard fd >= 0 else { throw Failure(description: "memfd: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard ftruncate(fd, off_t(size)) == 0 else { throw Failure(description: "ftruncate: \(String(cString: strerror(errno)))") }
        guard let map = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), map != MAP_FAILED else {
            throw Failure(description: "mmap: \(String(cString: strerror(errno)))")
        }
        data = map
        let pool = wl_shm_create_pool(shm, fd, Int32(size))
        buffer = wl_shm_pool_create_buffer(pool, 0, Int32(width), Int32(height), Int32(stride), 0 /* WL_SHM_FORMAT_ARGB8888 */)
        wl_shm_pool_destroy(pool)
        pending = PixelRect(x: 0, y: 0, width: width, height: height)
        wl_buffer_add_listener(buffer, Listeners.buffer, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Copies what this buffer lacks from `image` (nil: transparent).
    func fill(from image: Image?) {
        guard let rect = pending?.intersection(PixelRect(x: 0, y: 0, width: width, height: height)), !rect.isEmpty else { pending = nil; return }
        pending = nil
        if let image, image.width == width, image.height == height {
            image.withUnsafePixels { source, sourceStride in
                for y in rect.y..<(rect.y + rect.height) {
                    (data + y * stride + rect.x * 4).copyMemory(from: source + y * sourceStride + rect.x * 4, byteCount: rect.width * 4)
                }
            }
        } else {
            for y in rect.y..<(rect.y + rect.height) { memset(data + y * stride + rect.x * 4, 0, rect.width * 4) }
        }
    }

    func destroy() {
        wl_buffer_destroy(buffer)
        munmap(data, size)
    }
}
