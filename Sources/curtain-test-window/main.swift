import CWaylandClient
import CWaylandProtocols
import Foundation
import UnixSockets

#if canImport(Glibc)
import Glibc
#endif

// curtain-test-window [RRGGBB] [--ready-fifo PATH]: the overlay tests' stand-in app. A
// fullscreen xdg_toplevel of one opaque colour that prints, one line each, "mapped WxH" once
// its first buffer is committed and "click X Y" for every pointer button press (surface
// coordinates). Under curtaind (NOTIFY_SOCKET) it reports READY=1 once mapped, or, with
// --ready-fifo, once the test opens that FIFO for writing (the test decides when the app is
// ready). Where the compositor offers zwlr_virtual_pointer_manager_v1 (sway) it adds a virtual
// pointer, so that a headless seat has a pointer and `swaymsg seat - cursor press` clicks.

final class TestWindow: @unchecked Sendable {
    var compositor: OpaquePointer?
    var shm: OpaquePointer?
    var wmBase: OpaquePointer?
    var seat: OpaquePointer?
    var pointer: OpaquePointer?
    var surface: OpaquePointer?
    var xdgSurface: OpaquePointer?
    var toplevel: OpaquePointer?
    var proposed = (0, 0)
    var size = (0, 0)
    var buffer: OpaquePointer?
    var pointerAt = (0.0, 0.0)
    var virtualPointers: OpaquePointer?
    var readyFIFO: String?
    var notified = false
    let color: UInt32

    init(color: UInt32) { self.color = color }

    static func from(_ data: UnsafeMutableRawPointer?) -> TestWindow {
        Unmanaged<TestWindow>.fromOpaque(data!).takeUnretainedValue()
    }
    var me: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    func say(_ line: String) {
        var bytes = Array((line + "\n").utf8)
        _ = write(1, &bytes, bytes.count)
    }

    func draw(width: Int, height: Int) {
        guard width > 0, height > 0, (width, height) != size || buffer == nil else { return }
        size = (width, height)
        let stride = width * 4
        let bytes = stride * height
        let fd = curtain_shm_file("curtain-test-window")
        defer { close(fd) }
        guard fd >= 0, ftruncate(fd, off_t(bytes)) == 0,
            let map = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), map != MAP_FAILED
        else {
            say("error: no shm buffer")
            exit(1)
        }
        let pixels = map.bindMemory(to: UInt32.self, capacity: width * height)
        for i in 0..<(width * height) { pixels[i] = 0xFF00_0000 | color }
        munmap(map, bytes)
        let pool = wl_shm_create_pool(shm, fd, Int32(bytes))
        if let buffer { wl_buffer_destroy(buffer) }
        // The last argument is WL_SHM_FORMAT_XRGB8888.
        buffer = wl_shm_pool_create_buffer(pool, 0, Int32(width), Int32(height), Int32(stride), 1)
        wl_shm_pool_destroy(pool)
        wl_surface_attach(surface, buffer, 0, 0)
        wl_surface_damage(surface, 0, 0, Int32(width), Int32(height))
        wl_surface_commit(surface)
        say("mapped \(width)x\(height)")
        guard !notified else { return }
        notified = true
        if let fifo = readyFIFO {
            // Blocks in open(2) until the test opens the FIFO for writing.
            let thread = Thread { if open(fifo, O_RDONLY) >= 0 { self.say(notifyReady()) } }
            thread.start()
        } else {
            say(notifyReady())
        }
    }
}

/// sd_notify's READY=1 on $NOTIFY_SOCKET (a datagram; "@" starts an abstract address).
func notifyReady() -> String {
    guard let path = getenv("NOTIFY_SOCKET").map({ String(cString: $0) }), !path.isEmpty else {
        return "no NOTIFY_SOCKET"
    }
    let address: UnixSocketAddress
    do { address = try UnixSocketAddress(path) } catch { return "NOTIFY_SOCKET: \(error)" }
    let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    defer { close(fd) }
    let message = Array("READY=1".utf8)
    let sent = address.withSockAddr { sendto(fd, message, message.count, 0, $0, $1) }
    return (sent == message.count ? "notified READY=1" : "notify failed: \(String(cString: strerror(errno)))")
}

func complain(_ message: String) {
    var bytes = Array(message.utf8)
    _ = write(2, &bytes, bytes.count)
}

func listener<T>(_ value: T) -> UnsafeMutablePointer<T> {
    let p = UnsafeMutablePointer<T>.allocate(capacity: 1)
    p.initialize(to: value)
    return p
}

var arguments = Array(CommandLine.arguments.dropFirst())
var readyFIFO: String? = nil
if let i = arguments.firstIndex(of: "--ready-fifo"), i + 1 < arguments.count {
    readyFIFO = arguments[i + 1]
    arguments.removeSubrange(i...(i + 1))
}
guard arguments.count <= 1, let color = UInt32(arguments.first ?? "2ecc71", radix: 16) else {
    complain("usage: curtain-test-window [RRGGBB] [--ready-fifo PATH]\n")
    exit(2)
}
let window = TestWindow(color: color)
window.readyFIFO = readyFIFO
guard let display = wl_display_connect(nil) else {
    complain("curtain-test-window: cannot connect to the Wayland compositor: \(String(cString: strerror(errno)))\n")
    exit(1)
}

let pointerListener = listener(
    wl_pointer_listener(
        enter: { data, _, _, _, x, y in TestWindow.from(data).pointerAt = (wl_fixed_to_double(x), wl_fixed_to_double(y))
        },
        leave: { _, _, _, _ in },
        motion: { data, _, _, x, y in TestWindow.from(data).pointerAt = (wl_fixed_to_double(x), wl_fixed_to_double(y))
        },
        button: { data, _, _, _, _, state in
            let w = TestWindow.from(data)
            if state == 1 { w.say("click \(Int(w.pointerAt.0)) \(Int(w.pointerAt.1))") }
        },
        axis: { _, _, _, _, _ in },
        frame: { _, _ in },
        axis_source: { _, _, _ in },
        axis_stop: { _, _, _, _ in },
        axis_discrete: { _, _, _, _ in },
        axis_value120: { _, _, _, _ in }
    )
)
let seatListener = listener(
    wl_seat_listener(
        capabilities: { data, seat, capabilities in
            let w = TestWindow.from(data)
            if capabilities & 1 != 0, w.pointer == nil {  // WL_SEAT_CAPABILITY_POINTER
                w.pointer = wl_seat_get_pointer(seat)
                wl_pointer_add_listener(w.pointer, pointerListener, data)
            }
        },
        name: { _, _, _ in }
    )
)
let wmBaseListener = listener(xdg_wm_base_listener(ping: { _, base, serial in xdg_wm_base_pong(base, serial) }))
let registryListener = listener(
    wl_registry_listener(
        global: { data, registry, name, interface, version in
            let w = TestWindow.from(data)
            switch String(cString: interface!) {
            case "wl_compositor":
                w.compositor = OpaquePointer(wl_registry_bind(registry, name, curtain_wl_compositor_interface(), 1))
            case "wl_shm": w.shm = OpaquePointer(wl_registry_bind(registry, name, curtain_wl_shm_interface(), 1))
            case "xdg_wm_base":
                w.wmBase = OpaquePointer(wl_registry_bind(registry, name, curtain_xdg_wm_base_interface(), 1))
            case "zwlr_virtual_pointer_manager_v1":
                w.virtualPointers = OpaquePointer(
                    wl_registry_bind(registry, name, curtain_zwlr_virtual_pointer_manager_v1_interface(), 1)
                )
            case "wl_seat":
                w.seat = OpaquePointer(wl_registry_bind(registry, name, curtain_wl_seat_interface(), min(version, 5)))
                wl_seat_add_listener(w.seat, seatListener, data)
            default: break
            }
        },
        global_remove: { _, _, _ in }
    )
)
let toplevelListener = listener(
    xdg_toplevel_listener(
        configure: { data, _, width, height, _ in TestWindow.from(data).proposed = (Int(width), Int(height)) },
        close: { _, _ in exit(0) },
        configure_bounds: { _, _, _, _ in },
        wm_capabilities: { _, _, _ in }
    )
)
let xdgSurfaceListener = listener(
    xdg_surface_listener(
        configure: { data, xdgSurface, serial in
            xdg_surface_ack_configure(xdgSurface, serial)
            let w = TestWindow.from(data)
            w.draw(width: w.proposed.0 > 0 ? w.proposed.0 : 640, height: w.proposed.1 > 0 ? w.proposed.1 : 480)
        })
)

let registry = wl_display_get_registry(display)
wl_registry_add_listener(registry, registryListener, window.me)
wl_display_roundtrip(display)
guard window.compositor != nil, window.shm != nil, window.wmBase != nil else {
    complain("curtain-test-window: the compositor lacks wl_compositor, wl_shm or xdg_wm_base\n")
    exit(1)
}
xdg_wm_base_add_listener(window.wmBase, wmBaseListener, nil)
if let manager = window.virtualPointers {
    _ = zwlr_virtual_pointer_manager_v1_create_virtual_pointer(manager, window.seat)
}
window.surface = wl_compositor_create_surface(window.compositor)
window.xdgSurface = xdg_wm_base_get_xdg_surface(window.wmBase, window.surface)
xdg_surface_add_listener(window.xdgSurface, xdgSurfaceListener, window.me)
window.toplevel = xdg_surface_get_toplevel(window.xdgSurface)
xdg_toplevel_add_listener(window.toplevel, toplevelListener, window.me)
xdg_toplevel_set_title(window.toplevel, "curtain-test-window")
xdg_toplevel_set_app_id(window.toplevel, "curtain-test-window")
xdg_toplevel_set_fullscreen(window.toplevel, nil)
wl_surface_commit(window.surface)
while wl_display_dispatch(display) >= 0 {}
exit(0)
