#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The address of a Unix socket, checked once: a file system path, or an abstract name
/// written as systemd writes it (a leading "@" stands for the NUL that starts the name).
///
/// Every `sockaddr_un` in Curtain is built here, so that the one limit a Unix socket has —
/// `sun_path` is 108 bytes on Linux — is refused with a precise error everywhere, instead of
/// being truncated by a copy or left to the kernel's ENAMETOOLONG.
public struct UnixSocketAddress: Sendable, Hashable, CustomStringConvertible {
    /// The bytes of `sun_path` (108 on Linux).
    public static let capacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)
    /// The longest path, in UTF-8 bytes: the terminating NUL takes the last byte of `sun_path`.
    public static let maximumPathLength = capacity - 1
    /// The longest abstract name after its "@": the leading NUL takes the first byte, and
    /// the name is not terminated.
    public static let maximumAbstractNameLength = capacity - 1

    /// Why a string is not a Unix socket address.
    public enum AddressError: Error, Hashable, CustomStringConvertible {
        /// An empty path (or a lone "@").
        case empty
        /// The path or abstract name is `length` bytes, more than `maximum`.
        case tooLong(String, length: Int, maximum: Int)
        /// The path contains a NUL byte, which would cut it short.
        case containsNUL(String)

        /// A sentence for errors shown to people: the address and what is wrong with it.
        public var description: String {
            switch self {
            case .empty: "a Unix socket address cannot be empty"
            case .tooLong(let path, let length, let maximum):
                "\(path): a Unix socket address has at most \(maximum) bytes; this one has \(length)"
            case .containsNUL(let path): "\(path.debugDescription): a Unix socket path cannot contain a NUL byte"
            }
        }
    }

    /// The address as given: a path, or "@name" for an abstract one.
    public let path: String
    /// What goes into `sun_path` (an abstract name starts with its NUL).
    private let bytes: [UInt8]

    /// Whether this is an abstract name ("@name"), which exists only as long as its socket.
    public var isAbstract: Bool { bytes.first == 0 }

    /// Checks `path` and keeps it.
    /// - Throws: `AddressError.empty`, `.containsNUL`, or `.tooLong` for a path of more than
    ///   `maximumPathLength` bytes (107: 107 bytes and the NUL fill `sun_path`) or an abstract
    ///   name of more than `maximumAbstractNameLength`.
    public init(_ path: String) throws(AddressError) {
        var bytes = Array(path.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes.removeFirst() }
        guard !bytes.isEmpty else { throw .empty }
        guard !bytes.contains(0) else { throw .containsNUL(path) }
        let maximum = abstract ? Self.maximumAbstractNameLength : Self.maximumPathLength
        guard bytes.count <= maximum else { throw .tooLong(path, length: bytes.count, maximum: maximum) }
        self.path = path
        self.bytes = abstract ? [0] + bytes : bytes
    }

    public var description: String { path }

    /// Calls `body` with the address as a `sockaddr` and its length (exact for an abstract
    /// name, whose length is part of the name).
    public func withSockAddr<Result, Failure: Error>(
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (isAbstract ? 0 : 1))
        return try withUnsafePointer(to: &address) { (pointer) throws(Failure) -> Result in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (raw) throws(Failure) -> Result in
                try body(raw, length)
            }
        }
    }

    /// connect(2) of `fd` to this address: 0, or -1 with errno set.
    public func connect(_ fd: Int32) -> Int32 {
        withSockAddr { address, length in
            #if canImport(Glibc)
            Glibc.connect(fd, address, length)
            #else
            Darwin.connect(fd, address, length)
            #endif
        }
    }

    /// bind(2) of `fd` to this address: 0, or -1 with errno set.
    public func bind(_ fd: Int32) -> Int32 {
        withSockAddr { address, length in
            #if canImport(Glibc)
            Glibc.bind(fd, address, length)
            #else
            Darwin.bind(fd, address, length)
            #endif
        }
    }

    /// The address `fd` is bound to (getsockname(2)); nil if it is not a named Unix socket.
    public static func bound(to fd: Int32) -> UnixSocketAddress? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard ok == 0, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
        let used = max(0, Int(length) - MemoryLayout<sa_family_t>.size)
        let raw = withUnsafeBytes(of: address.sun_path) { Array($0.prefix(used)) }
        guard let first = raw.first else { return nil }  // unnamed
        let path =
            first == 0
            ? "@" + String(decoding: raw.dropFirst(), as: UTF8.self)
            : String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        return try? UnixSocketAddress(path)
    }
}
